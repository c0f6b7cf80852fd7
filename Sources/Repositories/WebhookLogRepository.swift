import Database
import Foundation
import PipelineCore
import Settlement

// MARK: - The webhook log: every outbox row, and replays with the same webhook id

/// The outbox as operators review it (`iap webhooks`, the console).
///
/// A small store over the pipeline's database, SQLite or PostgreSQL: every method is one
/// transaction, run on a thread of the database's own. A replay puts a row back to
/// `pending`, due now, with a fresh set of attempts and the same id: the receiver's
/// dedupe on `webhook-id` keeps it from acting twice.
public struct WebhookLogRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// What to list.
    public struct Filter: Hashable, Sendable {
        public var status: WebhookLogEntry.Status?
        public var accountID: String?
        public var since: Date?
        public var until: Date?
        public var limit: Int
        /// Only this app's webhooks; every app's when nil.
        public var app: AppScope?

        public init(
            status: WebhookLogEntry.Status? = nil, accountID: String? = nil, since: Date? = nil, until: Date? = nil,
            limit: Int = 100, app: AppScope? = nil
        ) {
            self.app = app
            self.status = status
            self.accountID = accountID
            self.since = since
            self.until = until
            self.limit = limit
        }
    }

    static let columns = """
        id, type, account_id, receipt_id, notification_id, status, attempts, last_error, next_attempt_at,
        created_at, delivered_at
        """

    /// Rows that match `filter`, newest first, without their bodies.
    public func list(_ filter: Filter) async throws -> [WebhookLogEntry] {
        var conditions: [String] = []
        var arguments: SQLArguments = []
        if let status = filter.status {
            conditions.append("status = ?")
            arguments.append(status.rawValue)
        }
        if let account = filter.accountID {
            conditions.append("account_id = ?")
            arguments.append(account)
        }
        if let app = filter.app?.sqlCondition(column: "account_id") {
            conditions.append(app.sql)
            arguments += app.arguments
        }
        if let since = filter.since {
            conditions.append("created_at >= ?")
            arguments.append(since)
        }
        if let until = filter.until {
            conditions.append("created_at < ?")
            arguments.append(until)
        }
        let filters = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(max(1, min(filter.limit, 10_000)))
        let bound = arguments
        return try await database.snapshot { db in
            try await db.rows(
                "SELECT \(Self.columns) FROM notification_outbox \(filters) ORDER BY created_at DESC, id DESC LIMIT ?",
                bound
            ).map { try Self.entry($0, body: nil) }
        }
    }

    /// One row with its body; nil if there is no such webhook.
    public func webhook(id: String) async throws -> WebhookLogEntry? {
        try await database.snapshot { db in
            try await db.row("SELECT \(Self.columns), body FROM notification_outbox WHERE id = ?", [id]).map {
                try Self.entry($0, body: try $0.get("body"))
            }
        }
    }

    /// Sends these webhooks again, with the same ids: each is pending, due now, with its
    /// attempts counted afresh. Returns the ids that exist (and so will be sent).
    public func replay(ids: [String], now: Date) async throws -> [String] {
        let found = try await database.transaction { db in
            try await db.rows(
                """
                UPDATE notification_outbox SET status = 'pending', attempts = 0, next_attempt_at = ?,
                    delivered_at = NULL
                WHERE id IN (?) RETURNING id
                """, in: ids, before: [now]
            ).map { try $0.get("id", as: String.self) }
        }
        let replayed = Set(found)
        return ids.filter { replayed.contains($0) }
    }

    /// Sends again every webhook given up on (`failed`) that was written in `since..<until`.
    public func replayFailed(since: Date, until: Date, now: Date) async throws -> [String] {
        let failed = try await list(Filter(status: .failed, since: since, until: until, limit: 10_000))
        return try await replay(ids: failed.map(\.id), now: now)
    }

    /// The receiver has been failing if webhooks wait after a failed attempt (or were
    /// given up on) and the oldest of them is older than `for`; nil while all is well.
    public func failingReceiver(for duration: TimeInterval, now: Date) async throws -> FailingReceiver? {
        try await database.snapshot { db in
            guard
                let row = try await db.row(
                    """
                    SELECT COUNT(*) AS waiting, MIN(created_at) AS since FROM notification_outbox
                    WHERE status = 'failed' OR (status = 'pending' AND attempts > 0)
                    """),
                let waiting = try row.get("waiting", as: Int?.self), waiting > 0,
                let since = try row.get("since", as: Date?.self), now.timeIntervalSince(since) >= duration
            else { return nil }
            let lastError: String? = try await db.value(
                """
                SELECT last_error FROM notification_outbox
                WHERE last_error IS NOT NULL AND (status = 'failed' OR (status = 'pending' AND attempts > 0))
                ORDER BY created_at DESC LIMIT 1
                """)
            return FailingReceiver(waiting: waiting, since: since, lastError: lastError)
        }
    }

    static func entry(_ row: SQLRow, body: String?) throws -> WebhookLogEntry {
        WebhookLogEntry(
            id: try row.get("id"), type: WebhookType(rawValue: try row.get("type")) ?? .receiptCredited,
            accountID: try row.get("account_id"), receiptID: try row.get("receipt_id"),
            notificationID: try row.get("notification_id"),
            status: WebhookLogEntry.Status(rawValue: try row.get("status")) ?? .pending,
            attempts: try row.get("attempts"), lastError: try row.get("last_error"),
            nextAttemptAt: try row.get("next_attempt_at"), createdAt: try row.get("created_at"),
            deliveredAt: try row.get("delivered_at"), body: body)
    }
}
