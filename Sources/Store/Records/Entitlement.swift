import Database
import Foundation

/// A row of `entitlements`: a named right an account holds until `expiresAt` (nil: for ever).
struct Entitlement: Codable, Hashable, Sendable {
    var accountID: String
    var name: String
    var expiresAt: Date?
    /// The subscription's first transaction, which later renewals are bound by.
    var originalTransactionID: String?
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case accountID = "account_id"
        case name
        case expiresAt = "expires_at"
        case originalTransactionID = "original_transaction_id"
        case updatedAt = "updated_at"
    }
}
