import Foundation
import PipelineCore

// MARK: - Subscription changes the stores define: upgrades, replacements, family sharing

extension SettlementEngine {
    /// Apple ended a subscription because the customer upgraded to another of its group
    /// (`isUpgraded`, with the upgrade's date as its revocation date): not a refund. Nothing is
    /// debited and no refund is told; the entitlement it granted ends at the upgrade, unless a
    /// later transaction already carries it (the upgrade's own, granting the same name).
    func upgraded(_ transaction: VerifiedTransaction, cause: Cause, state: SettlementState, now: Date) -> Decision {
        guard let known = state.known, let accountID = known.accountID else {
            return Decision(reason: "upgraded", accountID: state.known?.accountID)
        }
        var decision = Decision(reason: "upgraded", accountID: accountID)
        let ended = min(transaction.cancellationDate ?? now, now)
        if let name = known.entitlement, let current = state.account(accountID).entitlements[name],
            current.originalTransactionID == transaction.originalTransactionID,
            current.expiresAt == known.expiresDate, (current.expiresAt ?? .distantFuture) > ended
        {
            decision.effects.append(
                .setEntitlement(
                    accountID: accountID, name: name,
                    end: EntitlementEnd(expiresAt: ended, originalTransactionID: current.originalTransactionID)))
        }
        return decision
    }

    /// An upgraded transaction seen for the first time: the period it paid for, which ended at
    /// the upgrade; credited as any paid period, never as a refund.
    static func upgradedPeriod(_ transaction: VerifiedTransaction) -> VerifiedTransaction {
        var period = transaction
        if let ended = transaction.cancellationDate {
            period.expiresDate = period.expiresDate.map { min($0, ended) } ?? ended
        }
        period.cancellationDate = nil
        return period
    }

    /// What a subscription's new transaction replaces: the entitlements of the same
    /// subscription, or of the one it replaces (Google's `linkedPurchaseToken`), under another
    /// name end when it starts (an upgrade or crossgrade to another product moves access at
    /// once); under its own name, the replaced subscription's end gives way to its own.
    static func replaced(
        by transaction: VerifiedTransaction, granting name: String?, account: AccountState, accountID: String,
        now: Date
    ) -> (effects: [SettlementEffect], current: EntitlementEnd?) {
        let subscriptions = Set([transaction.originalTransactionID, transaction.linkedOriginalTransactionID])
        let starts = min(transaction.purchaseDate ?? now, now)
        var effects: [SettlementEffect] = []
        for (held, end) in account.entitlements.sorted(by: { $0.key < $1.key })
        where held != name && subscriptions.contains(end.originalTransactionID)
            && (end.expiresAt ?? .distantFuture) > starts
        {
            effects.append(
                .setEntitlement(
                    accountID: accountID, name: held,
                    end: EntitlementEnd(expiresAt: starts, originalTransactionID: end.originalTransactionID)))
        }
        var current = name.flatMap { account.entitlements[$0] }
        if let linked = transaction.linkedOriginalTransactionID, current?.originalTransactionID == linked {
            // The replaced token's access is not this one's to extend.
            current = nil
        }
        return (effects, current)
    }
}
