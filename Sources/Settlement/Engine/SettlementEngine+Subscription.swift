import Foundation
import PipelineCore

// MARK: - Subscriptions: expiry and billing grace, for the account the subscription is bound to

extension SettlementEngine {
    /// A subscription period ended: the bound account's entitlement ends at the
    /// transaction's expiry or now, whichever is earlier (`subscription.expired`).
    func expire(_ transaction: VerifiedTransaction, cause: Cause, state: SettlementState, now: Date) -> Decision {
        guard let accountID = state.bound?.accountID else { return Decision(reason: "unbound") }
        guard let name = entitlementName(of: transaction, state: state),
            let current = state.account(accountID).entitlements[name]
        else {
            return Decision(reason: "no_entitlement", accountID: accountID)
        }
        let end = min(transaction.expiresDate ?? now, now)
        let ends = current.expiresAt.map { min($0, end) } ?? end
        var decision = Decision(accountID: accountID)
        if ends != current.expiresAt {
            decision.effects.append(
                .setEntitlement(
                    accountID: accountID, name: name,
                    end: EntitlementEnd(expiresAt: ends, originalTransactionID: current.originalTransactionID)))
        }
        var event = TransactionEventData(transaction, notificationUUID: cause.notificationUUID)
        event.entitlement = name
        event.expiresAt = ends
        decision.effects.append(
            .send(
                Webhook(
                    type: .subscriptionExpired, accountID: accountID, receiptID: state.known?.receiptID,
                    notificationID: cause.notificationID, data: .transaction(event))))
        return decision
    }

    /// Renewal failed and Apple keeps the subscription until `until`: the entitlement lasts
    /// at least that long.
    func keep(_ transaction: VerifiedTransaction, until: Date?, cause: Cause, state: SettlementState) -> Decision {
        guard let accountID = state.bound?.accountID else { return Decision(reason: "unbound") }
        guard let until else { return Decision(reason: "no_grace_period", accountID: accountID) }
        guard let name = entitlementName(of: transaction, state: state),
            let current = state.account(accountID).entitlements[name]
        else {
            return Decision(reason: "no_entitlement", accountID: accountID)
        }
        var decision = Decision(accountID: accountID)
        let end = EntitlementEnd(
            expiresAt: EntitlementEnd.later(current.expiresAt, until),
            originalTransactionID: current.originalTransactionID)
        if end != current { decision.effects = [.setEntitlement(accountID: accountID, name: name, end: end)] }
        return decision
    }

    /// What the scheduler's check after an expiry concludes when Apple reported no renewal:
    /// the subscription ended (`subscription.expired`, once per expiry), unless the
    /// entitlement runs on.
    /// - Returns: `expired`, `renewed` (it runs on), or `unchanged` (nothing to end).
    public func concludeLapse(
        entitlement name: String, state: SettlementState, cause: Cause, now: Date
    ) -> (outcome: String, effects: [SettlementEffect]) {
        guard let first = state.bound, first.app == cause.app, let accountID = first.accountID,
            let current = state.account(accountID).entitlements[name]
        else { return ("unchanged", []) }
        guard let end = current.expiresAt, end <= now else { return ("renewed", []) }
        var event = TransactionEventData(first, notificationUUID: nil)
        event.entitlement = name
        event.expiresAt = end
        let webhook = Webhook(
            type: .subscriptionExpired, accountID: accountID, receiptID: cause.receiptID, data: .transaction(event))
        return ("expired", [.send(webhook)])
    }

    /// The entitlement a subscription's transaction concerns: the catalog's, else the one
    /// its first credited transaction granted.
    private func entitlementName(of transaction: VerifiedTransaction, state: SettlementState) -> String? {
        catalog.resolve(storeProductID: transaction.productID)?.product.entitlement ?? state.bound?.entitlement
    }
}
