import Foundation
import Settlement

/// A receipt as `GET /v1/receipts/{id}` shows it.
///
/// Encodes with snake_case keys (`receipt_id`, `status`, `reason`, `attempts`,
/// `transactions`, ...); use `WireCoding.encoder()` for ISO 8601 dates.
public struct ReceiptDetails: Codable, Hashable, Sendable {
    public var receiptID: String
    public var accountID: String
    public var kind: ReceiptKind
    public var status: ReceiptStatus
    /// Why it was rejected or dead-lettered, or the last transient error while retrying.
    public var reason: String?
    public var attempts: Int
    /// `Production` or `Sandbox`, once Apple said.
    public var environment: String?
    public var orderID: String?
    public var productID: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// When the broker confirmed the receipt's message; nil until then.
    public var publishedAt: Date?
    /// The Apple transactions it carried, in the order Apple listed them.
    public var transactions: [CarriedTransaction]

    public init(
        receiptID: String, accountID: String, kind: ReceiptKind, status: ReceiptStatus, reason: String?,
        attempts: Int, environment: String?, orderID: String?, productID: String?, createdAt: Date,
        updatedAt: Date, publishedAt: Date?, transactions: [CarriedTransaction]
    ) {
        self.receiptID = receiptID
        self.accountID = accountID
        self.kind = kind
        self.status = status
        self.reason = reason
        self.attempts = attempts
        self.environment = environment
        self.orderID = orderID
        self.productID = productID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.publishedAt = publishedAt
        self.transactions = transactions
    }

    enum CodingKeys: String, CodingKey {
        case receiptID = "receipt_id"
        case accountID = "account_id"
        case kind, status, reason, attempts, environment
        case orderID = "order_id"
        case productID = "product_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case publishedAt = "published_at"
        case transactions
    }

    /// One Apple transaction of a receipt and what it credited.
    /// One Apple transaction the receipt carried, and what became of it.
    public typealias CarriedTransaction = Settlement.CarriedTransaction
}
