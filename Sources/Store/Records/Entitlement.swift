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

    /// Grants the entitlement until `expiresAt`, or extends it: the later end wins, and
    /// nil (permanent) beats any date. Returns the entitlement as it now stands.
    @discardableResult
    static func extend(
        _ db: Database, accountID: String, name: String, until expiresAt: Date?, originalTransactionID: String,
        now: Date
    ) throws -> Entitlement {
        var entitlement: Entitlement
        if let existing = try Entitlement.fetchOne(db, key: ["account_id": accountID, "name": name]) {
            entitlement = existing
            entitlement.expiresAt = later(existing.expiresAt, expiresAt)
            entitlement.originalTransactionID = existing.originalTransactionID ?? originalTransactionID
            entitlement.updatedAt = now
        } else {
            entitlement = Entitlement(
                accountID: accountID, name: name, expiresAt: expiresAt,
                originalTransactionID: originalTransactionID, updatedAt: now)
        }
        try entitlement.upsert(db)
        return entitlement
    }

    /// Ends the entitlement at `end`, unless it ends earlier already. Returns it as it now
    /// stands, or nil if the account does not hold it.
    @discardableResult
    static func end(_ db: Database, accountID: String, name: String, at end: Date, now: Date) throws -> Entitlement? {
        guard var entitlement = try Entitlement.fetchOne(db, key: ["account_id": accountID, "name": name]) else {
            return nil
        }
        if let current = entitlement.expiresAt, current <= end { return entitlement }
        entitlement.expiresAt = end
        entitlement.updatedAt = now
        try entitlement.update(db)
        return entitlement
    }

    /// Keeps an entitlement the account holds until at least `date` (a billing grace
    /// period). Returns it as it now stands, or nil if the account does not hold it.
    static func keep(_ db: Database, accountID: String, name: String, until date: Date, now: Date) throws
        -> Entitlement?
    {
        guard var entitlement = try Entitlement.fetchOne(db, key: ["account_id": accountID, "name": name]) else {
            return nil
        }
        entitlement.expiresAt = later(entitlement.expiresAt, date)
        entitlement.updatedAt = now
        try entitlement.update(db)
        return entitlement
    }

    /// The later of two ends, where nil means never.
    private static func later(_ a: Date?, _ b: Date?) -> Date? {
        guard let a, let b else { return nil }
        return max(a, b)
    }
}

extension DerivableRequest<Entitlement> {
    func filter(accountID: String) -> Self {
        filter { $0.accountID == accountID }
    }
}
