import PipelineCore

// MARK: - A refund the balance cannot pay: the catalog's negative-balance policy

extension SettlementEngine {
    /// How a debit lands on a balance.
    struct BookedDebit: Hashable, Sendable {
        /// The part of the debit credited back as a `write_off` (policy `clamp`); 0 if none.
        var writeOff: Int
        /// The balance after the debit and its write-off.
        var balance: Int
        /// Why the account is flagged, if it is.
        var flag: AccountFlagReason?
    }

    /// Books a debit of `debit` (positive) on `balance` by `policy`.
    ///
    /// `allow` takes it all, down below zero if need be, and flags the account when the
    /// balance ends below zero. `clamp` takes at most what the balance holds above zero
    /// (nothing when it is already below), writes off the rest and flags the account when
    /// it wrote anything off.
    static func book(_ debit: Int, balance: Int, policy: NegativeBalancePolicy) -> BookedDebit {
        switch policy {
        case .allow:
            let after = balance - debit
            return BookedDebit(writeOff: 0, balance: after, flag: after < 0 ? .negativeBalance : nil)
        case .clamp:
            let taken = min(debit, max(balance, 0))
            let writeOff = debit - taken
            return BookedDebit(
                writeOff: writeOff, balance: balance - taken, flag: writeOff > 0 ? .refundShortfall : nil)
        }
    }

    /// The ledger entries and the flag of a booked debit: the debit whole, its write-off
    /// beside it, so the ledger shows both what Apple took back and what was forgiven. Both
    /// carry the take-back's `step` (an adjustment's write-off, step 1: it has one).
    static func effects(
        of booked: BookedDebit, debiting debit: Money, as kind: LedgerKind, from accountID: String,
        transactionID: String, cause: Cause, step: Int = 1
    ) -> [SettlementEffect] {
        let entry = { (amount: Int, kind: LedgerKind) in
            SettlementEffect.post(
                LedgerPosting(
                    accountID: accountID, currency: debit.currency, amount: amount, kind: kind,
                    receiptID: cause.receiptID, notificationID: cause.notificationID, transactionID: transactionID,
                    step: kind == .adjustment ? 0 : step))
        }
        var effects = [entry(-debit.amount, kind)]
        if booked.writeOff > 0 { effects.append(entry(booked.writeOff, .writeOff)) }
        if let reason = booked.flag {
            effects.append(
                .flagAccount(
                    AccountFlag(
                        accountID: accountID, reason: reason, currency: debit.currency,
                        amount: reason == .refundShortfall ? booked.writeOff : booked.balance,
                        transactionID: transactionID, notificationID: cause.notificationID)))
        }
        return effects
    }
}
