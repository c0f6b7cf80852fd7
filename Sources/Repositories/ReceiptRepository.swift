import Database
import Foundation
import PipelineCore

/// Receipts as the API, operators and metrics read them: one receipt with what it
/// credited, counts by status, search across receipts and Apple notifications, throughput.
///
/// A small store over the pipeline's one database: every method is one read, run off the
/// caller's thread. (The intake's commit and the relay's marks run on the intake's own
/// database thread, through ``SQLiteDatabase``.)
public struct ReceiptRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// A receipt with the Apple transactions it carried and what each credited; nil if
    /// there is no such receipt.
    public func receipt(id: String) async throws -> ReceiptDetails? {
        try await database.snapshot { db in
            guard let receipt = try await db.record(Receipt.self, "SELECT * FROM receipts WHERE id = ?", [id]) else {
                return nil
            }
            let carried = try await db.records(
                ReceiptTransaction.self,
                "SELECT * FROM receipt_transactions WHERE receipt_id = ? ORDER BY \(db.dialect.insertionOrder)",
                [id])
            return ReceiptDetails(
                receiptID: receipt.id, accountID: receipt.accountID, kind: receipt.kind, status: receipt.status,
                reason: receipt.reason, attempts: receipt.attempts, environment: receipt.environment,
                orderID: receipt.orderID, productID: receipt.productID, createdAt: receipt.createdAt,
                updatedAt: receipt.updatedAt, publishedAt: receipt.publishedAt,
                transactions: carried.map(\.carried))
        }
    }

    /// How many receipts are in each status: for operators, metrics and tests.
    public func receiptStatusCounts() async throws -> [ReceiptStatus: Int] {
        try await statusCounts(in: "receipts")
    }

    /// How many App Store notifications are in each status.
    public func notificationStatusCounts() async throws -> [NotificationStatus: Int] {
        try await statusCounts(in: "store_notifications")
    }

    private func statusCounts<Status: RawRepresentable & Hashable & Sendable>(in table: String) async throws -> [Status:
        Int]
    where Status.RawValue == String {
        try await database.snapshot { db in
            var counts: [Status: Int] = [:]
            for row in try await db.rows("SELECT status, COUNT(*) AS n FROM \(table) GROUP BY status", []) {
                if let status = Status(rawValue: try row.get("status")) { counts[status] = try row.get("n") }
            }
            return counts
        }
    }

    /// Receipts and Apple notifications whose id, account id, order id or store transaction id is
    /// `text`, newest first. Each kind of id is looked up by its own index (schema v17), so a
    /// search reads the rows it finds, not the tables.
    public func searchReceipts(_ text: String, limit: Int = 100) async throws -> [ReceiptSearchHit] {
        try await database.snapshot { db in
            let rows = try await db.rows(
                """
                SELECT 'receipt' AS kind, id, account_id, status, reason, attempts, created_at, updated_at
                FROM receipts
                WHERE id IN (
                    SELECT id FROM receipts WHERE id = ?
                    UNION SELECT id FROM receipts WHERE account_id = ?
                    UNION SELECT id FROM receipts WHERE order_id = ?
                    UNION SELECT receipt_id FROM receipt_transactions WHERE transaction_id = ?
                    UNION SELECT receipt_id FROM store_transactions WHERE transaction_id = ?
                    UNION SELECT receipt_id FROM store_transactions WHERE original_transaction_id = ?)
                UNION ALL
                SELECT 'notification', id, account_id, status, reason, attempts, created_at, updated_at
                FROM store_notifications
                WHERE id IN (
                    SELECT id FROM store_notifications WHERE id = ?
                    UNION SELECT id FROM store_notifications WHERE account_id = ?
                    UNION SELECT id FROM store_notifications WHERE transaction_id = ?
                    UNION SELECT id FROM store_notifications WHERE original_transaction_id = ?)
                ORDER BY created_at DESC LIMIT ?
                """, Array(repeating: text, count: 10) + [limit])
            return try rows.map { row in
                ReceiptSearchHit(
                    kind: ReceiptSearchHit.Kind(rawValue: try row.get("kind")) ?? .receipt, id: try row.get("id"),
                    accountID: try row.get("account_id"), status: try row.get("status"), reason: try row.get("reason"),
                    attempts: try row.get("attempts"), createdAt: try row.get("created_at"),
                    updatedAt: try row.get("updated_at"))
            }
        }
    }

    /// Receipts received and credited (their `receipt.credited` webhooks), and messages
    /// dead-lettered, since `moment`.
    ///
    /// Receipts and webhooks have no index by time, but their ids are made in time order:
    /// a range of the primary key from ``firstID(since:)`` reads the window's rows and the
    /// dates decide.
    public func throughput(since moment: Date) async throws -> Throughput {
        let first = Self.firstID(since: moment)
        return try await database.snapshot { db in
            Throughput(
                received: try await db.value(
                    "SELECT COUNT(*) FROM receipts WHERE id >= ? AND created_at >= ?", [first, moment]) ?? 0,
                credited: try await db.value(
                    """
                    SELECT COUNT(*) FROM notification_outbox
                    WHERE id >= ? AND type = 'receipt.credited' AND created_at >= ?
                    """, [OutboxEntry.idPrefix + first, moment]) ?? 0,
                deadLettered: try await db.value("SELECT COUNT(*) FROM dead_letters WHERE dead_at >= ?", [moment]) ?? 0)
        }
    }

    /// The least id (``TimeOrderedID``, a webhook's after ``OutboxEntry/idPrefix``) of a
    /// row written at or after `moment`: a second earlier, as a row's id and its date are
    /// read from the clock at two moments. Ids written before ids were time-ordered sort
    /// anywhere: those after this one are read and their dates decide; those before it,
    /// under one in a hundred, go uncounted, which matters only in the hour after upgrading
    /// from such a release.
    static func firstID(since moment: Date) -> String {
        TimeOrderedID.least(at: moment.addingTimeInterval(-1))
    }
}
