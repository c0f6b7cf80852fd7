import Database
import Foundation
import PipelineCore

// MARK: - Reconciliation: which of Apple's notifications did we never store?

/// What reconciliation with Apple's Notification History reads and records.
///
/// A small store over the pipeline's database, SQLite or PostgreSQL: every method is one
/// transaction, run on a thread of the database's own, so no caller blocks a cooperative
/// thread. Missing notifications are stored through ``NotificationRepository``, the
/// intake's own path, and the relay publishes them like any other.
public struct ReconciliationRepository: Sendable {
    let database: any SQLDatabase
    /// The app whose runs this records and continues (`''`: the default app's).
    let app: String

    /// - Parameter app: The app whose Notification History is read (issue 30); nil for the
    ///   default app (or the single-app settings' one).
    public init(_ database: any SQLDatabase, app: String? = nil) {
        self.database = database
        self.app = app ?? ""
    }

    /// A notification Apple listed: the hash its payload is stored under, and its
    /// `notificationUUID` if it could be read.
    public struct Listed: Hashable, Sendable {
        public var payloadHash: String
        public var notificationUUID: String?

        public init(payloadHash: String, notificationUUID: String?) {
            self.payloadHash = payloadHash
            self.notificationUUID = notificationUUID
        }
    }

    /// The notifications of `listed` we never stored: no row has the payload, and none
    /// applied a notification with its UUID (Apple signs a resend anew).
    public func unknown(_ listed: [Listed]) async throws -> [Listed] {
        guard !listed.isEmpty else { return [] }
        return try await database.snapshot { [app] db in
            try await listed.asyncFilter { item in
                let byPayload = try await db.row(
                    "SELECT 1 AS found FROM store_notifications WHERE app = ? AND payload_hash = ?",
                    [app, item.payloadHash])
                guard byPayload == nil else { return false }
                guard let uuid = item.notificationUUID else { return true }
                return try await db.row(
                    "SELECT 1 AS found FROM store_notifications WHERE app = ? AND notification_uuid = ?", [app, uuid])
                    == nil
            }
        }
    }

    /// Records a run, as this store's app's.
    public func record(_ run: ReconciliationRun) async throws {
        try await database.transaction { [app] db in
            try await db.execute(
                """
                INSERT INTO reconciliation_runs (
                    trigger, mode, window_start, window_end, examined, missing, fed, error, started_at, finished_at,
                    app)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    run.trigger.rawValue, run.dryRun ? "dry_run" : "apply", run.windowStart, run.windowEnd,
                    run.examined, run.missing, run.fed, run.error, run.startedAt, run.finishedAt, app,
                ])
        }
    }

    /// Where this app's last complete run that fed what it found ended: its next scheduled
    /// one starts there (another app's run, over another History, covers nothing of it).
    public func coveredUntil() async throws -> Date? {
        try await database.snapshot { [app] db in
            try await db.row(
                """
                SELECT window_end FROM reconciliation_runs WHERE mode = 'apply' AND error IS NULL AND app = ?
                ORDER BY window_end DESC LIMIT 1
                """, [app])?.get("window_end", as: Date.self)
        }
    }

    /// The latest run, for the console's overview.
    public func latest() async throws -> ReconciliationRun? {
        try await database.snapshot { db in
            guard
                let row = try await db.row(
                    """
                    SELECT trigger, mode, window_start, window_end, examined, missing, fed, error, started_at,
                        finished_at
                    FROM reconciliation_runs ORDER BY id DESC LIMIT 1
                    """)
            else { return nil }
            return ReconciliationRun(
                trigger: ReconciliationRun.Trigger(rawValue: try row.get("trigger")) ?? .schedule,
                dryRun: try row.get("mode", as: String.self) == "dry_run", windowStart: try row.get("window_start"),
                windowEnd: try row.get("window_end"), examined: try row.get("examined"),
                missing: try row.get("missing"), fed: try row.get("fed"), error: try row.get("error"),
                startedAt: try row.get("started_at"), finishedAt: try row.get("finished_at"))
        }
    }
}
