import Foundation
import PipelineCore

// MARK: - Google Play acknowledgements: what Google must hear after a credit

/// The purchases Google must be told were delivered: consumed (consumables, which lets the
/// player buy again) or acknowledged (the rest). Google refunds one left unacknowledged
/// for three days, so the row is written in the credit's own transaction and worked off
/// until Google says it is done, with backoff, by any number of workers (a claim leases a
/// row for ``lease``).
public struct GoogleAcknowledgementStore: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    public struct Acknowledgement: Hashable, Sendable {
        public enum Action: String, Hashable, Sendable {
            case consume
            case acknowledge
            case acknowledgeSubscription = "acknowledge_subscription"
        }

        public enum Status: String, Hashable, Sendable {
            case pending, done, failed
        }

        public var purchase: GooglePlayPurchase
        public var action: Action
        public var receiptID: String?
        public var status: Status
        public var attempts: Int
        public var nextAttemptAt: Date?
        public var lastError: String?
        public var createdAt: Date
        public var doneAt: Date?
    }

    /// How long a claimed row is kept from other workers.
    public static let lease: TimeInterval = 60

    /// Records that `purchase` must be told, once per token (a second credit attempt of the
    /// same token finds it there). Runs inside the credit's transaction.
    static func enqueue(
        _ purchase: GooglePlayPurchase, action: Acknowledgement.Action, receiptID: String?, now: SQLValue,
        in db: any SQLSession
    ) async throws {
        try await db.execute(
            """
            INSERT INTO google_acknowledgements (
                purchase_token, package_name, product_id, action, receipt_id, status, attempts, next_attempt_at,
                created_at)
            VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)
            ON CONFLICT (purchase_token) DO NOTHING
            """,
            [
                purchase.purchaseToken, purchase.packageName, purchase.productID, action.rawValue, receiptID, now,
                now,
            ])
    }

    /// Up to `limit` rows due by `now`, each leased for ``lease`` and counted as an attempt.
    public func claimDue(now: Date, limit: Int) async throws -> [Acknowledgement] {
        try await database.transaction { db in
            let due = try await db.rows(
                """
                SELECT \(Self.columns) FROM google_acknowledgements
                WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?
                """, [now, limit]
            ).map(Self.acknowledgement)
            for row in due {
                try await db.execute(
                    """
                    UPDATE google_acknowledgements SET attempts = attempts + 1, next_attempt_at = ?
                    WHERE purchase_token = ?
                    """, [now.addingTimeInterval(Self.lease), row.purchase.purchaseToken])
            }
            return due.map {
                var claimed = $0
                claimed.attempts += 1
                return claimed
            }
        }
    }

    /// Google said it is done.
    public func markDone(token: String, now: Date) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                UPDATE google_acknowledgements SET status = 'done', done_at = ?, next_attempt_at = NULL,
                    last_error = NULL
                WHERE purchase_token = ?
                """, [now, token])
        }
    }

    /// A failed attempt: again at `retryAt`, or never (`nil`: an operator's case).
    public func markFailed(token: String, error: String, retryAt: Date?) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                UPDATE google_acknowledgements SET status = ?, next_attempt_at = ?, last_error = ?
                WHERE purchase_token = ?
                """, [retryAt == nil ? "failed" : "pending", retryAt, String(error.prefix(500)), token])
        }
    }

    /// One row, if the token has one.
    public func acknowledgement(token: String) async throws -> Acknowledgement? {
        try await database.snapshot { db in
            try await db.row("SELECT \(Self.columns) FROM google_acknowledgements WHERE purchase_token = ?", [token])
                .map(Self.acknowledgement)
        }
    }

    /// Purchases still unacknowledged after `age`, or given up on: Google refunds them at
    /// three days, so two are an alarm.
    public func overdue(olderThan age: TimeInterval, now: Date) async throws -> Int {
        try await database.snapshot { db in
            try await db.value(
                """
                SELECT COUNT(*) FROM google_acknowledgements
                WHERE status = 'failed' OR (status = 'pending' AND created_at < ?)
                """, [now.addingTimeInterval(-age)]) ?? 0
        }
    }

    static let columns = """
        purchase_token, package_name, product_id, action, receipt_id, status, attempts, next_attempt_at,
        last_error, created_at, done_at
        """

    static func acknowledgement(_ row: SQLRow) throws -> Acknowledgement {
        Acknowledgement(
            purchase: GooglePlayPurchase(
                packageName: try row.get("package_name"), productID: try row.get("product_id"),
                purchaseToken: try row.get("purchase_token")),
            action: Acknowledgement.Action(rawValue: try row.get("action")) ?? .acknowledge,
            receiptID: try row.get("receipt_id"),
            status: Acknowledgement.Status(rawValue: try row.get("status")) ?? .pending,
            attempts: try row.get("attempts"), nextAttemptAt: try row.get("next_attempt_at"),
            lastError: try row.get("last_error"), createdAt: try row.get("created_at"), doneAt: try row.get("done_at"))
    }
}
