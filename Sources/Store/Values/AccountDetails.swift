import Foundation
import Settlement

/// An account as `GET /v1/accounts/{id}` shows it:
/// `{"account_id", "balances": {"coins": 600}, "entitlements": [{"name", "expires_at"}], "ledger": [...]}`.
public struct AccountDetails: Codable, Hashable, Sendable {
    public var accountID: String
    /// Currency → amount.
    public var balances: [String: Int]
    /// By name.
    public var entitlements: [Entitlement]
    /// The most recent ledger entries, newest first.
    public var ledger: [LedgerLine]

    public init(accountID: String, balances: [String: Int], entitlements: [Entitlement], ledger: [LedgerLine]) {
        self.accountID = accountID
        self.balances = balances
        self.entitlements = entitlements
        self.ledger = ledger
    }

    enum CodingKeys: String, CodingKey {
        case accountID = "account_id"
        case balances, entitlements, ledger
    }

    /// An entitlement the account holds (or held: compare `expiresAt` with the time).
    public struct Entitlement: Codable, Hashable, Sendable {
        public var name: String
        /// Nil: for ever. Encoded as `null`, never left out.
        public var expiresAt: Date?

        public init(name: String, expiresAt: Date?) {
            self.name = name
            self.expiresAt = expiresAt
        }

        enum CodingKeys: String, CodingKey {
            case name
            case expiresAt = "expires_at"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(expiresAt, forKey: .expiresAt)
        }
    }

    /// One movement of a balance.
    public struct LedgerLine: Codable, Hashable, Sendable {
        public var id: Int64
        public var currency: String
        /// Signed: positive credits, negative debits.
        public var amount: Int
        public var kind: LedgerKind
        /// The receipt whose application posted it, if one did.
        public var receiptID: String?
        /// The Apple notification whose application posted it (a refund, a renewal), if one did.
        public var notificationID: String?
        public var transactionID: String?
        public var createdAt: Date

        public init(
            id: Int64, currency: String, amount: Int, kind: LedgerKind, receiptID: String?,
            notificationID: String? = nil, transactionID: String?, createdAt: Date
        ) {
            self.id = id
            self.currency = currency
            self.amount = amount
            self.kind = kind
            self.receiptID = receiptID
            self.notificationID = notificationID
            self.transactionID = transactionID
            self.createdAt = createdAt
        }

        enum CodingKeys: String, CodingKey {
            case id, currency, amount, kind
            case receiptID = "receipt_id"
            case notificationID = "notification_id"
            case transactionID = "transaction_id"
            case createdAt = "created_at"
        }
    }
}
