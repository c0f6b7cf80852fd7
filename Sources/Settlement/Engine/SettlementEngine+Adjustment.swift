import Foundation
import PipelineCore

// MARK: - What an operator does by hand: grants, revokes, entitlements

extension SettlementEngine {
    /// The most one adjustment may move: a typo of three zeros too many is refused, not posted.
    public static let largestAdjustment = 1_000_000_000

    /// An operator's grant (positive) or revoke (negative) of a currency: one `adjustment`
    /// entry tagged `adjustment:<id>`, and `account.adjusted`.
    ///
    /// Refused, changing nothing: an account with no row, a currency no catalog product
    /// grants, an amount of 0 or beyond ``largestAdjustment``, an empty reason or operator.
    /// A revoke the balance cannot pay follows the catalog's `negative_balance` policy, as a
    /// refund does: `allow` takes the balance below zero and flags the account; `clamp` posts
    /// the revoke whole with a `write_off` of what the balance could not give.
    func adjust(_ adjustment: Adjustment, state: SettlementState) throws(SettlementRefusal) -> Decision {
        guard !adjustment.accountID.isEmpty else { throw SettlementRefusal("an adjustment names no account") }
        guard !adjustment.currency.isEmpty else { throw SettlementRefusal("an adjustment names no currency") }
        guard adjustment.amount != 0 else { throw SettlementRefusal("an adjustment of 0 changes nothing") }
        try Self.checkManual(
            id: adjustment.id, accountID: adjustment.accountID, reason: adjustment.reason,
            operatorName: adjustment.operatorName, state: state)
        guard catalog.currencies.contains(adjustment.currency) else {
            throw SettlementRefusal(
                "no product grants the currency '\(adjustment.currency)' (known: "
                    + catalog.currencies.sorted().joined(separator: ", ") + ")")
        }
        guard adjustment.amount.magnitude <= Self.largestAdjustment.magnitude else {
            throw SettlementRefusal("an adjustment of \(adjustment.amount) is beyond \(Self.largestAdjustment)")
        }
        let balance = state.account(adjustment.accountID).balances[adjustment.currency] ?? 0
        var decision = Decision(accountID: adjustment.accountID)
        decision.effects = [.openAccount(adjustment.accountID)]
        var after = balance + adjustment.amount
        var writtenOff = 0
        if adjustment.amount > 0 {
            decision.effects.append(
                .post(
                    LedgerPosting(
                        accountID: adjustment.accountID, currency: adjustment.currency, amount: adjustment.amount,
                        kind: .adjustment, receiptID: nil, notificationID: nil, transactionID: adjustment.ledgerTag)))
        } else {
            let booked = Self.book(-adjustment.amount, balance: balance, policy: catalog.negativeBalance)
            decision.effects += Self.effects(
                of: booked, debiting: Money(currency: adjustment.currency, amount: -adjustment.amount),
                as: .adjustment, from: adjustment.accountID, transactionID: adjustment.ledgerTag,
                cause: Cause(receiptID: nil, notificationID: nil))
            after = booked.balance
            writtenOff = booked.writeOff
        }
        decision.effects.append(
            .send(
                Webhook(
                    type: .accountAdjusted, accountID: adjustment.accountID, receiptID: nil,
                    data: .adjusted(
                        AdjustmentEventData(
                            adjustmentID: adjustment.id, currency: adjustment.currency, amount: adjustment.amount,
                            balance: after, writtenOff: writtenOff, reason: adjustment.reason,
                            operatorName: adjustment.operatorName)))))
        return decision
    }

    /// An operator's grant of an entitlement until a date: the entitlement's end is set to
    /// it (a date passed ends it), and `entitlement.granted`. Refused like ``adjust``, and
    /// for an entitlement no catalog product grants.
    func entitle(_ grant: EntitlementGrant, state: SettlementState) throws(SettlementRefusal) -> Decision {
        try Self.checkManual(
            id: grant.id, accountID: grant.accountID, reason: grant.reason, operatorName: grant.operatorName,
            state: state)
        let known = catalog.entitlements
        guard known.contains(grant.entitlement) else {
            throw SettlementRefusal(
                "no product grants the entitlement '\(grant.entitlement)' (known: "
                    + known.sorted().joined(separator: ", ") + ")")
        }
        var decision = Decision(accountID: grant.accountID)
        decision.effects = [
            .setEntitlement(
                accountID: grant.accountID, name: grant.entitlement, end: EntitlementEnd(expiresAt: grant.until)),
            .send(
                Webhook(
                    type: .entitlementGranted, accountID: grant.accountID, receiptID: nil,
                    data: .adjusted(
                        AdjustmentEventData(
                            adjustmentID: grant.id, entitlement: grant.entitlement, expiresAt: grant.until,
                            reason: grant.reason, operatorName: grant.operatorName)))),
        ]
        return decision
    }

    private static func checkManual(
        id: String, accountID: String, reason: String, operatorName: String, state: SettlementState
    ) throws(SettlementRefusal) {
        guard !accountID.isEmpty else { throw SettlementRefusal("an adjustment names no account") }
        guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw SettlementRefusal("an adjustment needs a reason")
        }
        guard !operatorName.isEmpty else { throw SettlementRefusal("an adjustment needs an operator") }
        guard !id.isEmpty else { throw SettlementRefusal("an adjustment has no id") }
        guard state.account(accountID).exists else { throw SettlementRefusal("no account '\(accountID)'") }
    }
}
