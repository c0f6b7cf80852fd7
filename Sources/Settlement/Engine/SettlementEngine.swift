import Foundation
import PipelineCore

/// The money rules, once: takes an event and the state it needs, returns effects.
///
/// Pure: no database, no broker, no clock (`now` is passed in). The store reads the state
/// the event needs (``accountsInvolved(in:state:)`` says which accounts), asks the engine,
/// and applies the effects in the same transaction.
///
/// ```swift
/// let engine = SettlementEngine(catalog: catalog)
/// let decision = try engine.decide(.takenBack(transaction, kind: .refund, cause: cause), state: state, now: now)
/// for effect in decision.effects { try writer.apply(effect) }
/// ```
public struct SettlementEngine: Sendable {
    public var catalog: Catalog
    /// The stores' commission, by which the revenue ledger's proceeds are reckoned.
    public var commission: CommissionRates

    /// - Parameter commission: the stores' rates; by default the catalog's (`commission`).
    public init(catalog: Catalog, commission: CommissionRates? = nil) {
        self.catalog = catalog
        self.commission = commission ?? CommissionRates(catalog.commission)
    }

    /// Decides one event.
    /// - Throws: ``SettlementRefusal`` when the event is malformed (a transaction without
    ///   an id or a product, an absurd quantity, an empty adjustment): nothing is applied.
    public func decide(_ event: SettlementEvent, state: SettlementState, now: Date) throws(SettlementRefusal)
        -> Decision
    {
        if let foreign = Self.ofAnotherApp(event, state: state) { return foreign }
        switch event {
        case .transactionVerified(let transaction, let source):
            try Self.check(transaction)
            return try verified(transaction, source: source, state: state, now: now)
        case .takenBack(let transaction, let kind, let cause):
            try Self.check(transaction)
            // An upgrade ends a subscription without a refund.
            if transaction.isUpgraded == true { return upgraded(transaction, cause: cause, state: state, now: now) }
            return takeBack(transaction, kind: kind, cause: cause, state: state, now: now)
        case .refundReversed(let transaction, let cause):
            try Self.check(transaction)
            return restore(transaction, cause: cause, state: state)
        case .expired(let transaction, let cause):
            try Self.check(transaction)
            return expire(transaction, cause: cause, state: state, now: now)
        case .gracePeriod(let transaction, let until, let cause):
            try Self.check(transaction)
            return keep(transaction, until: until, cause: cause, state: state)
        case .consumptionRequest(let transaction, _):
            try Self.check(transaction)
            return Decision(reason: "consumption_request", accountID: state.known?.accountID ?? state.bound?.accountID)
        case .adjustment(let adjustment):
            return try adjust(adjustment, state: state)
        case .entitlementGrant(let grant):
            return try entitle(grant, state: state)
        }
    }

    /// The accounts whose state an event may need: the store reads these before ``decide``.
    public static func accountsInvolved(in event: SettlementEvent, state: SettlementState) -> [String] {
        var ids: [String?] = [
            state.bound?.accountID, state.known?.accountID, state.tokenOwner, state.linked?.accountID,
        ]
        switch event {
        case .transactionVerified(_, .receipt(_, let claimant, let order, _)):
            ids += [order?.accountID, claimant]
        case .transactionVerified(_, .subscriptionCheck(_, let accountID, _)):
            ids.append(accountID)
        case .adjustment(let adjustment):
            ids.append(adjustment.accountID)
        case .entitlementGrant(let grant):
            ids.append(grant.accountID)
        default:
            break
        }
        var seen: Set<String> = []
        return ids.compactMap { $0 }.filter { seen.insert($0).inserted }
    }

    /// A transaction the engine can record: Apple always sends these.
    static func check(_ transaction: VerifiedTransaction) throws(SettlementRefusal) {
        if transaction.transactionID.isEmpty { throw SettlementRefusal("a transaction has no transaction id") }
        if transaction.productID.isEmpty {
            throw SettlementRefusal("transaction \(transaction.transactionID) has no product id")
        }
        if transaction.originalTransactionID.isEmpty {
            throw SettlementRefusal("transaction \(transaction.transactionID) has no original transaction id")
        }
        // Apple counts units from 1; a 0 is no purchase to credit, not one unit.
        if transaction.quantity < 1 {
            throw SettlementRefusal(
                "transaction \(transaction.transactionID): quantity \(transaction.quantity) is not a positive count")
        }
        if let share = transaction.revocationPercentage, !(0...100_000).contains(share) {
            throw SettlementRefusal(
                "transaction \(transaction.transactionID): revocation percentage \(share) is not within 0...100000")
        }
        if let units = transaction.refundedQuantity, !(1...transaction.quantity).contains(units) {
            throw SettlementRefusal(
                "transaction \(transaction.transactionID): \(units) of \(transaction.quantity) units refunded")
        }
    }
}
