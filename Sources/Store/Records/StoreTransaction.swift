import Database
import Foundation
import Settlement

/// A row of `store_transactions`: every store transaction the fulfiller ever acted on.
/// Its primary key is what makes a transaction credit once, ever: a second receipt that
/// carries it finds the row and credits nothing. A transaction its store refunded before it
/// was credited has a row without an account, so that it never credits.
struct StoreTransaction: Codable, Hashable, Sendable, Identifiable {
    typealias State = TransactionState

    var id: String
    var originalTransactionID: String
    var productID: String
    var quantity: Int
    var environment: String?
    /// The receipt that first carried it, if a receipt did.
    var receiptID: String?
    /// The notification that first carried it (a renewal, or a refund before any receipt).
    var notificationID: String?
    /// The account it credited; nil if it never credited anyone.
    var accountID: String?
    var purchaseDate: Date?
    var expiresDate: Date?
    var cancellationDate: Date?
    var state: State
    /// The entitlement its credit granted or extended.
    var entitlement: String?
    var createdAt: Date
    var updatedAt: Date
    /// The catalog product it credited (several may share an Apple product id).
    var catalogProductID: String?
    /// The order it paid for, if one was made.
    var orderID: String?
    /// How its account was chosen.
    var binding: BindingPath?

    enum CodingKeys: String, CodingKey {
        case id = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case quantity, environment
        case receiptID = "receipt_id"
        case notificationID = "notification_id"
        case accountID = "account_id"
        case purchaseDate = "purchase_date"
        case expiresDate = "expires_date"
        case cancellationDate = "cancellation_date"
        case state, entitlement
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case catalogProductID = "catalog_product_id"
        case orderID = "order_id"
        case binding
    }
}
