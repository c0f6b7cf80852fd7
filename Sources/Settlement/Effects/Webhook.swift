import Foundation

/// A webhook the engine decided to send: the outbox stores it, the notifier delivers it.
public struct Webhook: Hashable, Sendable {
    public var type: WebhookType
    public var accountID: String
    public var receiptID: String?
    /// The Apple notification whose application this webhook announces, if one did.
    public var notificationID: String?
    public var data: WebhookData

    public init(
        type: WebhookType, accountID: String, receiptID: String?, notificationID: String? = nil, data: WebhookData
    ) {
        self.type = type
        self.accountID = accountID
        self.receiptID = receiptID
        self.notificationID = notificationID
        self.data = data
    }
}

/// The webhook event types, as the `type` field of a webhook body.
public enum WebhookType: String, Codable, Hashable, Sendable, CaseIterable {
    case receiptCredited = "receipt.credited"
    case receiptRejected = "receipt.rejected"
    case receiptDead = "receipt.dead"
    /// A one-time purchase a store reported with no receipt posted (a web shop's payment,
    /// Apple's `ONE_TIME_CHARGE`, Google's one-time notice) was credited.
    case purchaseCredited = "purchase.credited"
    /// A transaction's credit was taken back: the store refunded or revoked it.
    case purchaseRefunded = "purchase.refunded"
    /// Apple reversed a refund: the credit it took is given again.
    case purchaseRefundReversed = "purchase.refund_reversed"
    /// A renewal of a subscription was credited to the account it is bound to.
    case subscriptionRenewed = "subscription.renewed"
    /// A subscription ended: its entitlement now expires at `expires_at`.
    case subscriptionExpired = "subscription.expired"
    /// An operator granted (positive `amount`) or took back (negative) a currency by hand.
    case accountAdjusted = "account.adjusted"
    /// An operator granted an entitlement until `expires_at` by hand.
    case entitlementGranted = "entitlement.granted"

    /// Events about one store transaction (rather than a receipt's end). Their `data` is
    /// `{transaction_id, original_transaction_id, product_id, currency, amount, entitlement,
    /// expires_at, notification_uuid}`, and their body carries `notification_id`.
    public var isTransactionEvent: Bool {
        switch self {
        case .receiptCredited, .receiptRejected, .receiptDead, .accountAdjusted, .entitlementGranted: false
        case .purchaseCredited, .purchaseRefunded, .purchaseRefundReversed, .subscriptionRenewed, .subscriptionExpired:
            true
        }
    }
}

/// The `data` of a webhook, one shape per kind of event. The `Encodable` conformances here
/// state each shape; the outbox writes them with `JSONText` (`Webhook+JSONText.swift`), and
/// `WebhookJSONTests` holds the two to the same bytes.
public enum WebhookData: Hashable, Sendable, Encodable {
    case credited(CreditedData)
    case ended(EndedData)
    case transaction(TransactionEventData)
    case adjusted(AdjustmentEventData)

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .credited(let data): try data.encode(to: encoder)
        case .ended(let data): try data.encode(to: encoder)
        case .transaction(let data): try data.encode(to: encoder)
        case .adjusted(let data): try data.encode(to: encoder)
        }
    }
}

/// `data` of a `receipt.credited` webhook.
public struct CreditedData: Hashable, Sendable, Encodable {
    public var transactions: [CarriedTransaction]
    /// The account's balances after this receipt.
    public var balances: [String: Int]
    /// The order the receipt paid, if it named one: `mismatched` when Apple's product differs.
    public var order: OrderEventData?
}

/// `data` of a `receipt.rejected` or `receipt.dead` webhook.
public struct EndedData: Hashable, Sendable, Encodable {
    public var reason: String
    public var attempts: Int
    /// For a valid receipt that credited nothing: what became of each transaction.
    public var transactions: [CarriedTransaction]?
}

/// `data.order` of a `receipt.credited` webhook.
public struct OrderEventData: Hashable, Sendable, Encodable {
    public var orderID: String
    /// `fulfilled` or `mismatched`.
    public var status: String
    /// What the order asked for.
    public var productID: String
    /// What was credited: Apple's product decides.
    public var creditedProductID: String?
    public var mismatched: Bool

    enum CodingKeys: String, CodingKey {
        case orderID = "order_id"
        case status
        case productID = "product_id"
        case creditedProductID = "credited_product_id"
        case mismatched
    }
}

/// `data` of the transaction events (`purchase.refunded`, `purchase.refund_reversed`,
/// `subscription.renewed`, `subscription.expired`). Every key is present; `amount` is
/// signed (negative for a debit); `expires_at` is the entitlement's end after the event.
public struct TransactionEventData: Hashable, Sendable, Encodable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    public var currency: String?
    public var amount: Int?
    public var entitlement: String?
    public var expiresAt: Date?
    public var notificationUUID: String?
    /// After a debit (`purchase.refunded`): the account's balance of `currency`, which is
    /// below zero when the catalog's policy allows it.
    public var balance: Int?
    /// After a debit: the part of it written off because the balance could not give it
    /// (policy `clamp`); 0 when none.
    public var writtenOff: Int?

    enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case currency, amount, entitlement
        case expiresAt = "expires_at"
        case notificationUUID = "notification_uuid"
        case balance
        case writtenOff = "written_off"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transactionID, forKey: .transactionID)
        try container.encode(originalTransactionID, forKey: .originalTransactionID)
        try container.encode(productID, forKey: .productID)
        try container.encode(currency, forKey: .currency)
        try container.encode(amount, forKey: .amount)
        try container.encode(entitlement, forKey: .entitlement)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(notificationUUID, forKey: .notificationUUID)
        // Only debits carry these: other events' bodies stay as they were.
        try container.encodeIfPresent(balance, forKey: .balance)
        try container.encodeIfPresent(writtenOff, forKey: .writtenOff)
    }
}

/// One Apple transaction a receipt carried, and what became of it, as
/// `GET /v1/receipts/{id}` and the webhooks show it.
public struct CarriedTransaction: Codable, Hashable, Sendable {
    public var transactionID: String
    public var productID: String
    public var outcome: TransactionOutcome
    public var currency: String?
    public var amount: Int?
    public var entitlement: String?
    public var expiresAt: Date?

    public init(
        transactionID: String, productID: String, outcome: TransactionOutcome, currency: String? = nil,
        amount: Int? = nil, entitlement: String? = nil, expiresAt: Date? = nil
    ) {
        self.transactionID = transactionID
        self.productID = productID
        self.outcome = outcome
        self.currency = currency
        self.amount = amount
        self.entitlement = entitlement
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id"
        case productID = "product_id"
        case outcome, currency, amount, entitlement
        case expiresAt = "expires_at"
    }
}

/// What became of one Apple transaction a receipt carried.
public enum TransactionOutcome: String, Codable, Hashable, Sendable, CaseIterable {
    /// This receipt credited it.
    case credited
    /// An earlier receipt (of any account) already credited it: nothing credited.
    case alreadyCredited = "already_credited"
    /// The catalog does not sell this product: nothing credited.
    case unknownProduct = "unknown_product"
    /// Apple refunded or revoked it: nothing credited, and it never will be. When an
    /// earlier receipt had credited it, that credit is taken back (a `refund` debit).
    case refunded
    /// A renewal of a subscription another account bought first: credited to that account,
    /// not to this receipt's (renewals follow the original transaction, not the client).
    case boundToAnotherAccount = "bound_to_another_account"
    /// Another app of the pipeline recorded it (its store's transactions are that app's):
    /// nothing credited, nothing of that app told.
    case ofAnotherApp = "of_another_app"
}

extension TransactionOutcome {
    /// Credited to someone, by this receipt or before it: what the store must be told was
    /// delivered (Google's acknowledgement, a plug-in store's confirmation).
    public var isDelivered: Bool { self == .credited || self == .alreadyCredited || self == .boundToAnotherAccount }
}

/// `data` of `account.adjusted` (`currency`, signed `amount`, the `balance` after it and
/// what was `written_off` under policy `clamp`) and `entitlement.granted` (`entitlement`,
/// `expires_at`); both carry `adjustment_id`, `reason` and `operator`.
public struct AdjustmentEventData: Hashable, Sendable, Encodable {
    public var adjustmentID: String
    public var currency: String?
    public var amount: Int?
    public var balance: Int?
    public var writtenOff: Int?
    public var entitlement: String?
    public var expiresAt: Date?
    public var reason: String
    public var operatorName: String

    public init(
        adjustmentID: String, currency: String? = nil, amount: Int? = nil, balance: Int? = nil,
        writtenOff: Int? = nil, entitlement: String? = nil, expiresAt: Date? = nil, reason: String,
        operatorName: String
    ) {
        self.adjustmentID = adjustmentID
        self.currency = currency
        self.amount = amount
        self.balance = balance
        self.writtenOff = writtenOff
        self.entitlement = entitlement
        self.expiresAt = expiresAt
        self.reason = reason
        self.operatorName = operatorName
    }

    enum CodingKeys: String, CodingKey {
        case adjustmentID = "adjustment_id"
        case currency, amount, balance
        case writtenOff = "written_off"
        case entitlement
        case expiresAt = "expires_at"
        case reason
        case operatorName = "operator"
    }
}
