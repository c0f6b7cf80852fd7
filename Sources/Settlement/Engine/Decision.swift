import Foundation

/// What the engine decided for one event: the effects to apply, in order, and a summary
/// for the caller (the receipt's row for this transaction, a notification's reason).
public struct Decision: Hashable, Sendable {
    public var effects: [SettlementEffect] = []
    /// For a transaction a receipt carried: what became of it.
    public var outcome: TransactionOutcome?
    /// Why the event changed no account (nil when it changed one).
    public var reason: String?
    /// The account the event changed, or concerns.
    public var accountID: String?
    /// What a credit gave, as the receipt shows it.
    public var credit: CarriedTransaction?
    /// The order a credit paid.
    public var order: OrderEventData?

    init(reason: String? = nil, accountID: String? = nil) {
        self.reason = reason
        self.accountID = accountID
    }

    /// Nothing changed, for a transaction a receipt carried.
    static func unchanged(_ outcome: TransactionOutcome, accountID: String? = nil) -> Decision {
        var decision = Decision(reason: outcome.rawValue, accountID: accountID)
        decision.outcome = outcome
        return decision
    }
}

/// An event the engine will not apply, with the reason: the message that carried it is
/// dead-lettered for review, and nothing of it is applied.
public struct SettlementRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
