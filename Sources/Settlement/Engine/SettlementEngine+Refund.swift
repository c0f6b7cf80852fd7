import Foundation
import PipelineCore

// MARK: - Refunds and revocations, taken back in steps; their reversal, given back once

extension SettlementEngine {
    /// A store refunded or revoked a transaction: takes back what it credited, from the
    /// account it credited, as far as the refund now reaches.
    ///
    /// The event carries the share refunded so far, counted as the store counts it (Stripe's
    /// `amount_refunded` of `amount`, Google's voided units of n; Apple's full refund and every
    /// revocation: all of it). This step debits that share of the purchase entry (rounded
    /// down) less what earlier steps took: a refund to 80 % after one of 30 % takes 50 %, and
    /// an event whose share is not beyond what was taken (a redelivery, an older event) takes
    /// nothing (`already_refunded`). Never more than was credited in total. The entitlement
    /// ends at the cancellation. A transaction refunded before it ever credited is recorded
    /// so, and never credits; one whose refund was reversed is not taken back again.
    func takeBack(
        _ transaction: VerifiedTransaction, kind: TakeBackKind, cause: Cause, state: SettlementState, now: Date
    ) -> Decision {
        // A notice is a hint: only the store's own word (its signed data, or what was read
        // back from it) that the purchase was cancelled, with its date, takes anything back.
        guard let cancelled = transaction.cancellationDate else {
            return Decision(reason: "not_cancelled_by_store", accountID: state.known?.accountID)
        }
        let end = min(cancelled, now)
        guard let known = state.known else {
            var record = Self.record(transaction, cause: cause, state: kind.state)
            record.cancellationDate = end
            var decision = Decision(reason: "refunded_before_credit")
            decision.effects = [.recordTransaction(record)]
            return decision
        }
        if known.state == .unpaid {
            var decision = Decision(reason: "refunded_before_credit")
            decision.effects = [
                .updateTransaction(transactionID: known.transactionID, state: kind.state, cancellationDate: end)
            ]
            return decision
        }
        // What this step takes: the share refunded so far, less what earlier steps took.
        let taken = -(known.debit?.amount ?? 0)
        let step = known.purchase.map { Self.refunded(of: $0.amount, by: transaction) - taken } ?? 0
        let firstTakeBack = known.state == .credited && known.debit == nil
        guard let accountID = known.accountID, !known.reversed, firstTakeBack || step > 0 else {
            // Taken back as far as this event reaches (a redelivery, an older step), reversed
            // since, or never in credit: nothing more moves.
            return Decision(reason: "already_refunded", accountID: known.accountID)
        }

        var decision = Decision(accountID: accountID)
        var event = TransactionEventData(known, notificationUUID: cause.notificationUUID)
        if let purchase = known.purchase, step > 0 {
            // A refund of 0 % moves no coin; the transaction is refunded all the same.
            let money = Money(currency: purchase.currency, amount: step)
            let booked = Self.book(
                step, balance: state.account(accountID).balances[purchase.currency] ?? 0,
                policy: catalog.negativeBalance)
            decision.effects += Self.effects(
                of: booked, debiting: money, as: kind.ledgerKind, from: accountID, transactionID: known.transactionID,
                cause: cause, step: known.debitSteps + 1)
            event.currency = purchase.currency
            event.amount = -step
            event.balance = booked.balance
            event.writtenOff = booked.writeOff
        }
        if let givenBack = Self.revenueGivenBack(known, by: transaction, kind: kind, cause: cause) {
            decision.effects.append(.recordRevenue(givenBack))
        }
        // Units the player still owns keep what they grant: only a refund of every unit ends it.
        if let name = known.entitlement, !transaction.refundsSomeUnits,
            let current = state.account(accountID).entitlements[name]
        {
            let ends = current.expiresAt.map { min($0, end) } ?? end
            if ends != current.expiresAt {
                decision.effects.append(
                    .setEntitlement(
                        accountID: accountID, name: name,
                        end: EntitlementEnd(expiresAt: ends, originalTransactionID: current.originalTransactionID)))
            }
            event.entitlement = name
            event.expiresAt = ends
        }
        decision.effects.append(
            .updateTransaction(transactionID: known.transactionID, state: kind.state, cancellationDate: end))
        decision.effects.append(
            .send(
                Webhook(
                    type: .purchaseRefunded, accountID: accountID, receiptID: known.receiptID,
                    notificationID: cause.notificationID, data: .transaction(event))))
        return decision
    }

    /// The part of `amount` a refund has taken back so far: `k` of `n` units (Google's
    /// quantity-based partial refund) take k/n of it, exactly, whatever n; else the share in
    /// milliunits (Apple's `revocationPercentage`, Stripe's `amount_refunded` of `amount`).
    static func refunded(of amount: Int, by transaction: VerifiedTransaction) -> Int {
        if transaction.refundsSomeUnits, let units = transaction.refundedQuantity {
            return share(of: amount, units, per: transaction.quantity)
        }
        return share(of: amount, milliPercent: transaction.revocationPercentage)
    }

    /// The part of `amount` a refund of `milliPercent` (Apple's `revocationPercentage`:
    /// 100000 is all of it) takes back, rounded down: a player never loses more than the
    /// refund paid back. Nil is a full refund.
    static func share(of amount: Int, milliPercent: Int?) -> Int {
        guard let milliPercent else { return amount }
        return share(of: amount, milliPercent, per: 100_000)
    }

    /// `numerator / denominator` of `amount`, rounded down; all of it from `denominator` up.
    static func share(of amount: Int, _ numerator: Int, per denominator: Int) -> Int {
        guard numerator < denominator else { return amount }
        // Split so that amount × numerator cannot overflow.
        return (amount / denominator) * numerator + (amount % denominator) * numerator / denominator
    }

    /// Apple reversed a refund: credits again what the refund took (a `refund_reversal`
    /// entry, once; not what was written off), grants the entitlement again, and the transaction is credited again.
    func restore(_ transaction: VerifiedTransaction, cause: Cause, state: SettlementState) -> Decision {
        guard let known = state.known else { return Decision(reason: "not_refunded") }
        guard known.state == .refunded || known.state == .revoked else {
            return Decision(reason: "not_refunded", accountID: known.accountID)
        }
        guard known.everCredited, let accountID = known.accountID else {
            // Refunded before it ever credited: forget the refund, so that a receipt credits it.
            var decision = Decision(reason: "refund_forgotten_before_credit")
            decision.effects = [.forgetTransaction(transactionID: known.transactionID)]
            return decision
        }
        guard !known.reversed else { return Decision(reason: "not_refunded", accountID: accountID) }

        var decision = Decision(accountID: accountID)
        var event = TransactionEventData(known, notificationUUID: cause.notificationUUID)
        if let debit = known.debit {
            // What the refund took: its debit, less what the balance could not give.
            let taken = -debit.amount - (known.writtenOff?.amount ?? 0)
            if taken > 0 {
                decision.effects.append(
                    .post(
                        LedgerPosting(
                            accountID: accountID, currency: debit.currency, amount: taken, kind: .refundReversal,
                            receiptID: cause.receiptID, notificationID: cause.notificationID,
                            transactionID: known.transactionID)))
            }
            event.currency = debit.currency
            event.amount = taken
        }
        if let name = known.entitlement {
            let current = state.account(accountID).entitlements[name]
            let end = EntitlementEnd(
                expiresAt: current.map { EntitlementEnd.later($0.expiresAt, known.expiresDate) } ?? known.expiresDate,
                originalTransactionID: current?.originalTransactionID ?? known.originalTransactionID)
            decision.effects.append(.setEntitlement(accountID: accountID, name: name, end: end))
            event.entitlement = name
            event.expiresAt = end.expiresAt
        }
        if let restored = Self.revenueRestored(known, cause: cause) {
            decision.effects.append(.recordRevenue(restored))
        }
        decision.effects.append(
            .updateTransaction(transactionID: known.transactionID, state: .credited, cancellationDate: nil))
        decision.effects.append(
            .send(
                Webhook(
                    type: .purchaseRefundReversed, accountID: accountID, receiptID: known.receiptID,
                    notificationID: cause.notificationID, data: .transaction(event))))
        return decision
    }
}

extension VerifiedTransaction {
    /// A refund of some of a multi-unit purchase's units, not all of them.
    var refundsSomeUnits: Bool { refundedQuantity.map { $0 < quantity } ?? false }
}
