import Foundation
import GRDB

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

extension Entitlement: FetchableRecord, PersistableRecord {
    static let databaseTableName = "entitlements"

    enum Columns {
        static let accountID = Column(CodingKeys.accountID)
        static let name = Column(CodingKeys.name)
        static let expiresAt = Column(CodingKeys.expiresAt)
    }
}

extension DerivableRequest<Entitlement> {
    func filter(accountID: String) -> Self {
        filter { $0.accountID == accountID }
    }
}
