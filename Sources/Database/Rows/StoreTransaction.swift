import Foundation
import Settlement

/// A row of `store_transactions`: every store transaction the fulfiller ever acted on.
/// Its primary key is what makes a transaction credit once, ever: a second receipt that
/// carries it finds the row and credits nothing. A transaction its store refunded before it
/// was credited has a row without an account, so that it never credits.
package struct StoreTransaction: Codable, Hashable, Sendable, Identifiable {
    package typealias State = TransactionState

    package var id: String
    package var originalTransactionID: String
    package var productID: String
    package var quantity: Int
    package var environment: String?
    /// The receipt that first carried it, if a receipt did.
    package var receiptID: String?
    /// The notification that first carried it (a renewal, or a refund before any receipt).
    package var notificationID: String?
    /// The account it credited; nil if it never credited anyone.
    package var accountID: String?
    package var purchaseDate: Date?
    package var expiresDate: Date?
    package var cancellationDate: Date?
    package var state: State
    /// The entitlement its credit granted or extended.
    package var entitlement: String?
    package var createdAt: Date
    package var updatedAt: Date
    /// The catalog product it credited (several may share an Apple product id).
    package var catalogProductID: String?
    /// The order it paid for, if one was made.
    package var orderID: String?
    /// How its account was chosen.
    package var binding: BindingPath?

    package init(
        id: String, originalTransactionID: String, productID: String, quantity: Int, environment: String? = nil,
        receiptID: String? = nil, notificationID: String? = nil, accountID: String? = nil, purchaseDate: Date? = nil,
        expiresDate: Date? = nil, cancellationDate: Date? = nil, state: State, entitlement: String? = nil,
        createdAt: Date, updatedAt: Date, catalogProductID: String? = nil, orderID: String? = nil,
        binding: BindingPath? = nil
    ) {
        self.id = id
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.quantity = quantity
        self.environment = environment
        self.receiptID = receiptID
        self.notificationID = notificationID
        self.accountID = accountID
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.state = state
        self.entitlement = entitlement
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.catalogProductID = catalogProductID
        self.orderID = orderID
        self.binding = binding
    }

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
