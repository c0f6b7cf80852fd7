import Foundation
import GRDB

/// Receipts as the API, operators and metrics read them: one receipt with what it
/// credited, counts by status, search across receipts and Apple notifications, throughput.
///
/// A small store over the pipeline's one database: every method is one read, run off the
/// caller's thread. (The intake's commit and the relay's marks run on the intake's own
/// database thread, through ``PipelineDatabase``.)
public struct ReceiptStore: Sendable {
    let database: PipelineDatabase

    public init(_ database: PipelineDatabase) {
        self.database = database
    }

    /// A receipt with the Apple transactions it carried and what each credited; nil if
    /// there is no such receipt.
    public func receipt(id: String) async throws -> ReceiptDetails? {
        try await database.read { db in
            guard let receipt = try Receipt.fetchOne(db, id: id) else { return nil }
            let carried = try ReceiptTransaction.all().filter(receiptID: id).fetchAll(db)
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
        try await statusCounts(in: "apple_notifications")
    }

    private func statusCounts<Status: RawRepresentable & Hashable & Sendable>(in table: String) async throws -> [Status:
        Int]
    where Status.RawValue == String {
        try await database.read { db in
            var counts: [Status: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM \(table) GROUP BY status") {
                if let status = Status(rawValue: row["status"]) { counts[status] = row["n"] }
            }
            return counts
        }
    }

    /// Receipts and Apple notifications whose id, account id or Apple transaction id is
    /// `text`, newest first.
    public func searchReceipts(_ text: String, limit: Int = 100) async throws -> [ReceiptSearchHit] {
        try await database.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT 'receipt' AS kind, id, account_id, status, reason, attempts, created_at, updated_at
                    FROM receipts
                    WHERE id = :q OR account_id = :q
                        OR id IN (SELECT receipt_id FROM receipt_transactions WHERE transaction_id = :q)
                        OR id IN (SELECT receipt_id FROM apple_transactions
                                  WHERE transaction_id = :q OR original_transaction_id = :q)
                    UNION ALL
                    SELECT 'notification', id, account_id, status, reason, attempts, created_at, updated_at
                    FROM apple_notifications
                    WHERE id = :q OR account_id = :q OR transaction_id = :q OR original_transaction_id = :q
                    ORDER BY created_at DESC LIMIT :limit
                    """,
                arguments: ["q": text, "limit": limit])
            return rows.map { row in
                ReceiptSearchHit(
                    kind: ReceiptSearchHit.Kind(rawValue: row["kind"]) ?? .receipt, id: row["id"],
                    accountID: row["account_id"], status: row["status"], reason: row["reason"],
                    attempts: row["attempts"], createdAt: row["created_at"], updatedAt: row["updated_at"])
            }
        }
    }

    /// Receipts received and credited, and messages dead-lettered, since `moment`.
    public func throughput(since moment: Date) async throws -> Throughput {
        try await database.read { db in
            Throughput(
                received: try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM receipts WHERE created_at >= ?", arguments: [moment]) ?? 0,
                credited: try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM receipts WHERE status = 'credited' AND updated_at >= ?",
                    arguments: [moment]) ?? 0,
                deadLettered: try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM dead_letters WHERE dead_at >= ?", arguments: [moment]) ?? 0)
        }
    }
}
