import Foundation
import Settlement

/// An account as `GET /v1/accounts/{id}` shows it:
/// `{"account_id", "balances": {"coins": 600}, "entitlements": [{"name", "expires_at"}], "ledger": [...],
/// "flags": [...]}`.
public struct AccountDetails: Codable, Hashable, Sendable {
    public var accountID: String
    /// Currency → amount.
    public var balances: [String: Int]
    /// By name.
    public var entitlements: [Entitlement]
    /// The most recent ledger entries, newest first.
    public var ledger: [LedgerLine]
    /// What refunds flagged on it, newest first: a balance they took below zero, or a
    /// shortfall written off.
    public var flags: [Flag]
    /// Whether the player consented to share consumption data with Apple; nil if never asked.
    public var consumptionConsent: ConsumptionConsent?

    public init(
        accountID: String, balances: [String: Int], entitlements: [Entitlement], ledger: [LedgerLine],
        flags: [Flag] = [], consumptionConsent: ConsumptionConsent? = nil
    ) {
        self.accountID = accountID
        self.balances = balances
        self.entitlements = entitlements
        self.ledger = ledger
        self.flags = flags
        self.consumptionConsent = consumptionConsent
    }

    enum CodingKeys: String, CodingKey {
        case accountID = "account_id"
        case balances, entitlements, ledger, flags
        case consumptionConsent = "consumption_consent"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accountID, forKey: .accountID)
        try container.encode(balances, forKey: .balances)
        try container.encode(entitlements, forKey: .entitlements)
        try container.encode(ledger, forKey: .ledger)
        try container.encode(flags, forKey: .flags)
        // Null, never left out: "never asked" is an answer.
        try container.encode(consumptionConsent, forKey: .consumptionConsent)
    }

    /// A flag a refund raised (see `NegativeBalancePolicy`).
    public struct Flag: Codable, Hashable, Sendable {
        public var reason: AccountFlagReason
        public var currency: String
        /// `negative_balance`: the balance after the refund; `refund_shortfall`: what was written off.
        public var amount: Int
        public var transactionID: String
        public var notificationID: String?
        public var createdAt: Date

        public init(
            reason: AccountFlagReason, currency: String, amount: Int, transactionID: String, notificationID: String?,
            createdAt: Date
        ) {
            self.reason = reason
            self.currency = currency
            self.amount = amount
            self.transactionID = transactionID
            self.notificationID = notificationID
            self.createdAt = createdAt
        }

        enum CodingKeys: String, CodingKey {
            case reason, currency, amount
            case transactionID = "transaction_id"
            case notificationID = "notification_id"
            case createdAt = "created_at"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(reason, forKey: .reason)
            try container.encode(currency, forKey: .currency)
            try container.encode(amount, forKey: .amount)
            try container.encode(transactionID, forKey: .transactionID)
            try container.encode(notificationID, forKey: .notificationID)
            try container.encode(createdAt, forKey: .createdAt)
        }
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
