import Foundation
import GRDB

/// A row of `apple_transactions`: every Apple transaction the fulfiller ever acted on.
/// Its primary key is what makes a transaction credit once, ever: a second receipt that
/// carries it finds the row and credits nothing.
struct AppleTransaction: Codable, Hashable, Sendable, Identifiable {
    enum State: String, Codable, Hashable, Sendable, DatabaseValueConvertible {
        /// Credited to `accountID`.
        case credited
        /// Refunded by Apple (before or after credit).
        case refunded
        /// Revoked by Apple (family sharing ended, say).
        case revoked
        /// Seen but not paid for.
        case unpaid
    }

    var id: String
    var originalTransactionID: String
    var productID: String
    var quantity: Int
    var environment: String?
    /// The receipt that first carried it.
    var receiptID: String
    var accountID: String
    var purchaseDate: Date?
    var expiresDate: Date?
    var cancellationDate: Date?
    var state: State
    var createdAt: Date
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case id = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case quantity, environment
        case receiptID = "receipt_id"
        case accountID = "account_id"
        case purchaseDate = "purchase_date"
        case expiresDate = "expires_date"
        case cancellationDate = "cancellation_date"
        case state
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

extension AppleTransaction: FetchableRecord, PersistableRecord {
    static let databaseTableName = "apple_transactions"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let originalTransactionID = Column(CodingKeys.originalTransactionID)
        static let receiptID = Column(CodingKeys.receiptID)
        static let accountID = Column(CodingKeys.accountID)
        static let state = Column(CodingKeys.state)
    }
}
