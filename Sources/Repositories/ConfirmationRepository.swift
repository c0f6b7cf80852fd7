import Database
import Foundation
import PipelineCore

// MARK: - Plug-in stores' confirmations: what a store must hear after a credit

/// What plug-in stores are owed once their purchases are credited (Huawei's consumption
/// confirmation, Google Play's acknowledgement or consumption): written in the credit's own transaction, one row per store and
/// transaction, and worked off until the store says it is done, with backoff, by any
/// number of fulfillers (a claim leases a row for ``lease``).
public struct ConfirmationRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    public struct Confirmation: Hashable, Sendable {
        public enum Status: String, Hashable, Sendable {
            case pending, done, failed
        }

        public var store: String
        public var transactionID: String
        /// The app of the credited account, whose stores pay it (``PipelineCore/AppScope``); nil
        /// for the default app's (stored `''`).
        public var app: String?
        /// What the store's plug-in asked to be handed back (opaque here).
        public var payload: String
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

    /// Up to `limit` rows of `app`'s `stores` due by `now` (nil: the default app's), each
    /// leased for ``lease`` and counted as an attempt (a store not configured here is left to
    /// a process that has it).
    public func claimDue(stores: [String], app: String? = nil, now: Date, limit: Int) async throws -> [Confirmation] {
        guard !stores.isEmpty else { return [] }
        return try await database.transaction { db in
            let due = try await db.rows(
                """
                SELECT \(Self.columns) FROM store_confirmations
                WHERE status = 'pending' AND next_attempt_at <= ? AND app = ? AND store IN (?)
                ORDER BY next_attempt_at LIMIT ?
                """, in: stores, before: [now, app ?? ""], after: [limit]
            ).map(Self.confirmation)
            for (store, rows) in Dictionary(grouping: due, by: \.store) {
                try await db.execute(
                    """
                    UPDATE store_confirmations SET attempts = attempts + 1, next_attempt_at = ?
                    WHERE store = ? AND transaction_id IN (?)
                    """, in: rows.map(\.transactionID), before: [now.addingTimeInterval(Self.lease), store])
            }
            return due.map {
                var claimed = $0
                claimed.attempts += 1
                return claimed
            }
        }
    }

    /// The store said it is done.
    public func markDone(_ confirmation: Confirmation, now: Date) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                UPDATE store_confirmations SET status = 'done', done_at = ?, next_attempt_at = NULL, last_error = NULL
                WHERE store = ? AND transaction_id = ?
                """, [now, confirmation.store, confirmation.transactionID])
        }
    }

    /// A failed attempt: again at `retryAt`, or never (`nil`: an operator's case).
    public func markFailed(_ confirmation: Confirmation, error: String, retryAt: Date?) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                UPDATE store_confirmations SET status = ?, next_attempt_at = ?, last_error = ?
                WHERE store = ? AND transaction_id = ?
                """,
                [
                    retryAt == nil ? "failed" : "pending", retryAt, String(error.prefix(500)), confirmation.store,
                    confirmation.transactionID,
                ])
        }
    }

    /// One row, if the transaction has one.
    public func confirmation(store: String, transactionID: String) async throws -> Confirmation? {
        try await database.snapshot { db in
            try await db.row(
                "SELECT \(Self.columns) FROM store_confirmations WHERE store = ? AND transaction_id = ?",
                [store, transactionID]
            ).map(Self.confirmation)
        }
    }

    /// Confirmations still pending after `age`, or given up on, by store (stores with none
    /// left out).
    public func overdue(olderThan age: TimeInterval, now: Date) async throws -> [String: Int] {
        try await database.snapshot { db in
            var counts: [String: Int] = [:]
            for row in try await db.rows(
                """
                SELECT store, COUNT(*) AS n FROM store_confirmations
                WHERE status = 'failed' OR (status = 'pending' AND created_at < ?) GROUP BY store
                """, [now.addingTimeInterval(-age)])
            {
                counts[try row.get("store")] = try row.get("n")
            }
            return counts
        }
    }

    static let columns = """
        store, transaction_id, app, payload, receipt_id, status, attempts, next_attempt_at, last_error, created_at, done_at
        """

    static func confirmation(_ row: SQLRow) throws -> Confirmation {
        Confirmation(
            store: try row.get("store"), transactionID: try row.get("transaction_id"),
            app: try row.get("app", as: String?.self).flatMap { $0.isEmpty ? nil : $0 },
            payload: try row.get("payload"),
            receiptID: try row.get("receipt_id"),
            status: Confirmation.Status(rawValue: try row.get("status")) ?? .pending,
            attempts: try row.get("attempts"), nextAttemptAt: try row.get("next_attempt_at"),
            lastError: try row.get("last_error"), createdAt: try row.get("created_at"), doneAt: try row.get("done_at"))
    }
}
