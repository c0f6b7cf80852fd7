import Foundation
import GRDB

// MARK: - Queries: what the HTTP API shows

extension PipelineDatabase {
    /// A receipt with the Apple transactions it carried and what each credited; nil if
    /// there is no such receipt.
    public func receipt(id: String) throws -> ReceiptDetails? {
        try read { db in
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
    public func receiptStatusCounts() throws -> [ReceiptStatus: Int] {
        try statusCounts(in: "receipts")
    }

    /// How many App Store notifications are in each status.
    public func notificationStatusCounts() throws -> [NotificationStatus: Int] {
        try statusCounts(in: "apple_notifications")
    }

    private func statusCounts<Status: RawRepresentable & Hashable>(in table: String) throws -> [Status: Int]
    where Status.RawValue == String {
        try read { db in
            var counts: [Status: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM \(table) GROUP BY status") {
                if let status = Status(rawValue: row["status"]) { counts[status] = row["n"] }
            }
            return counts
        }
    }
}
