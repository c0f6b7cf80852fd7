import Database
import Foundation
import PipelineCore

// MARK: - Stores' notifications: accept and show (applied by the settlement engine)

/// What the stores push (Apple's App Store Server Notifications, a plug-in store's such as
/// Google's real-time developer notifications): accepted durably as posted, then shown.
///
/// A small store over the pipeline's database, SQLite or PostgreSQL: every method is one
/// transaction, run on a thread of the database's own (SQLite's or PostgreSQL's), so no caller blocks a
/// cooperative thread.
public struct NotificationRepository: Sendable {
    let database: any SQLDatabase
    /// The relay that publishes what this repository stores (``Relay``'s id), written on each
    /// new row; nil: any relay's, claimed by one first.
    let relay: String?

    public init(_ database: any SQLDatabase, relay: String? = nil) {
        self.database = database
        self.relay = relay
    }
    /// Stores a notification a store posted that names no id of its own (Apple's), in one
    /// transaction: when this returns it is durable, and the intake may answer the store 200.
    /// The relay publishes it with the receipts (see ``unpublishedReceipts(limit:)``).
    ///
    /// - Parameters:
    ///   - id: made by the caller (a UUID string); the notification's id if it is new.
    ///   - app: the app whose credential proved it (``AppScope/key``): each app's
    ///     notifications are told apart by their own keys.
    ///   - store: the store's id (Apple's by default).
    ///   - payload: the `signedPayload`, untouched.
    ///   - payloadHash: lower-case hex SHA-256 of the payload. Apple posts the same payload
    ///     again until it is answered; the same hash is the same notification.
    /// - Returns: the notification's id (the stored one, for a payload seen before), and
    ///   whether this call created it.
    public func acceptNotification(
        id: String, app: String, store: String = StoreEvidence.appleStore, payload: String, payloadHash: String,
        now: Date
    ) async throws -> (id: String, created: Bool) {
        try await accept(
            NotificationRow(
                id: id, app: app, payload: payload, payloadHash: payloadHash, now: now, store: store, relay: relay),
            knownBy: [("SELECT id FROM store_notifications WHERE app = ? AND payload_hash = ?", [app, payloadHash])])
    }

    /// Stores a notification a plug-in store pushed (its plug-in checked it), once per the
    /// store's own id for it (`messageID`) in its app, which the store sends again until it is
    /// answered: two apps' stores (two Pub/Sub topics) may number theirs alike.
    /// - Parameter formerKeys: What an earlier release keyed the same message by in this
    ///   store's rows (``NotificationRow/formerKeys``): a row found under one is the same
    ///   notification, sent again across an upgrade.
    /// - Returns: the notification's id (the stored one, for a message seen before), and
    ///   whether this call created it.
    public func acceptStoreNotification(
        id: String, app: String, store: String, messageID: String, formerKeys: [String] = [], payload: String,
        now: Date
    ) async throws -> (id: String, created: Bool) {
        // Message ids are the store's: two stores may number theirs alike.
        let key = "\(store):\(messageID)"
        let former = formerKeys.filter { $0 != key }.map {
            (
                "SELECT id FROM store_notifications WHERE app = ? AND store = ? AND message_id = ?",
                [app, store, $0] as SQLArguments
            )
        }
        return try await accept(
            NotificationRow(
                id: id, app: app, payload: payload, payloadHash: PayloadHash.notification("\(store):\(payload)"),
                now: now, store: store, messageID: key, relay: relay),
            knownBy: [("SELECT id FROM store_notifications WHERE app = ? AND message_id = ?", [app, key])] + former)
    }

    /// The app of the purchase a notice that proves no app names, by the store's original
    /// transaction id: the app that recorded it (an unsigned notice is believed of no other),
    /// or nil when no app did, and the notice is dropped unstored.
    public func appOfRecordedPurchase(originalTransactionID: String) async throws -> String? {
        try await database.snapshot { db in
            try await db.value(
                "SELECT app FROM store_transactions WHERE original_transaction_id = ? ORDER BY created_at LIMIT 1",
                [originalTransactionID])
        }
    }

    /// Inserts `row` unless one of the `lookups` (each a query of one id) finds it stored.
    private func accept(_ row: NotificationRow, knownBy lookups: [(String, SQLArguments)]) async throws -> (
        id: String, created: Bool
    ) {
        try await database.transaction { db in
            func known() async throws -> String? {
                for (sql, arguments) in lookups {
                    if let id: String = try await db.value(sql, arguments) { return id }
                }
                return nil
            }
            if let known = try await known() { return (known, false) }
            do {
                try await db.savepoint { try await db.insert(row, into: "store_notifications") }
            } catch SQLError.constraint {
                // Another intake stored the same one a moment ago (PostgreSQL, replicated).
                guard let known = try await known() else { throw SQLError.constraint(row.id) }
                return (known, false)
            }
            return (row.id, true)
        }
    }

    /// A notification's status, and what it was once verified; nil if there is no such one.
    public func notification(id: String) async throws -> NotificationDetails? {
        try await database.snapshot { db in
            try await db.record(NotificationRow.self, "SELECT * FROM store_notifications WHERE id = ?", [id])?
                .details
        }
    }

    /// The `CONSUMPTION_REQUEST`s Apple sent, oldest first, for an operator to answer.
    public func consumptionRequests() async throws -> [ConsumptionRequest] {
        try await database.snapshot { db in
            try await db.records(
                NotificationRow.self,
                """
                SELECT * FROM store_notifications WHERE type = ? AND notification_uuid IS NOT NULL
                ORDER BY created_at, id
                """, [StoreNotification.Kind.consumptionRequest.rawValue]
            ).compactMap(Self.consumptionRequest)
        }
    }

    static func consumptionRequest(_ row: NotificationRow) -> ConsumptionRequest? {
        guard let uuid = row.notificationUUID else { return nil }
        return ConsumptionRequest(
            notificationID: row.id, notificationUUID: uuid, transactionID: row.transactionID,
            originalTransactionID: row.originalTransactionID, productID: row.productID, accountID: row.accountID,
            environment: row.environment, signedDate: row.signedDate, receivedAt: row.createdAt)
    }
}
