import Foundation

/// What the validator learned about a receipt: the body of a message on the fulfil queue.
///
/// The fulfiller applies verdicts; ``Outcome/retrying`` is progress only (the receipt is
/// on a delay tier) and ``Outcome/dead`` records that it went to the dead-letter queue.
public struct Verdict: Codable, Hashable, Sendable {
    /// The outcome as it travels; unknown values still decode (see ``outcome``).
    public var rawOutcome: String
    public var receiptID: String
    public var accountID: String
    public var orderID: String?
    public var productID: String?
    /// Why a receipt was rejected or dead-lettered, or the last transient error.
    public var reason: String?
    /// Verify attempts made so far, the current one included.
    public var attempts: Int
    /// `Production` or `Sandbox`, as Apple names them.
    public var environment: String?
    public var transactions: [VerifiedTransaction]
    /// Set when the verdict is about a store notification (Apple's or Google's) rather than a receipt.
    public var notification: StoreNotification?
    public var decidedAt: Date
    /// The fulfiller's span for this verdict (W3C `traceparent`), set after decoding and
    /// stored with the webhooks it causes; never in the body.
    public var traceparent: String? = nil

    public enum Outcome: String, Sendable, CaseIterable {
        case valid, rejected, retrying, dead
    }

    /// The typed outcome, or nil for a value this build does not know.
    public var outcome: Outcome? { Outcome(rawValue: rawOutcome) }

    public init(
        outcome: Outcome, receiptID: String, accountID: String, orderID: String? = nil, productID: String? = nil,
        reason: String? = nil, attempts: Int, environment: String? = nil,
        transactions: [VerifiedTransaction] = [], notification: StoreNotification? = nil, decidedAt: Date
    ) {
        self.rawOutcome = outcome.rawValue
        self.receiptID = receiptID
        self.accountID = accountID
        self.orderID = orderID
        self.productID = productID
        self.reason = reason
        self.attempts = attempts
        self.environment = environment
        self.transactions = transactions
        self.notification = notification
        self.decidedAt = decidedAt
    }

    enum CodingKeys: String, CodingKey {
        case rawOutcome = "outcome"
        case receiptID = "receipt_id"
        case accountID = "account_id"
        case orderID = "order_id"
        case productID = "product_id"
        case reason, attempts, environment, transactions, notification
        case decidedAt = "decided_at"
    }
}
