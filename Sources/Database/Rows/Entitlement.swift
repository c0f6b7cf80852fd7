import Foundation

/// A row of `entitlements`: a named right an account holds until `expiresAt` (nil: for ever).
package struct Entitlement: Codable, Hashable, Sendable {
    package var accountID: String
    package var name: String
    package var expiresAt: Date?
    /// The subscription's first transaction, which later renewals are bound by.
    package var originalTransactionID: String?
    package var updatedAt: Date

    package init(
        accountID: String, name: String, expiresAt: Date? = nil, originalTransactionID: String? = nil, updatedAt: Date
    ) {
        self.accountID = accountID
        self.name = name
        self.expiresAt = expiresAt
        self.originalTransactionID = originalTransactionID
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case accountID = "account_id"
        case name
        case expiresAt = "expires_at"
        case originalTransactionID = "original_transaction_id"
        case updatedAt = "updated_at"
    }
}
