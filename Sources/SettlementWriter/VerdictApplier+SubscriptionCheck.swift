import Database
import Foundation
import PipelineCore
import Settlement

// MARK: - Subscription checks: Apple's answer around an expiry

extension VerdictApplier {
    /// Applies the verdict of a check: each transaction of the subscription Apple reports
    /// is settled (a renewal credited to the bound account, a cancellation taken back);
    /// after the expiry, a subscription Apple did not renew ends (`subscription.expired`).
    func apply(_ verdict: Verdict, to check: SubscriptionCheck) async throws -> VerdictResult {
        var check = check
        let step = VerdictStep(verdict, hasEnded: !(check.status == .scheduled || check.status == .checking))
        switch step {
        case .alreadyEnded:
            return .subscriptionCheckApplied(checkID: check.id, status: check.status.rawValue, outcome: check.outcome)
        case .unknownOutcome(let raw):
            return .unknownOutcome(receiptID: check.id, outcome: raw)
        case .retrying(let reason):
            check.reason = reason ?? check.reason
        case .ended(let ending, _):
            check.status = .failed
            let given = verdict.reason?.trimmedOfWhitespaceAndNewlines ?? ""
            check.reason = given.isEmpty ? ending.rawValue : verdict.reason
        case .settle:
            check.outcome = try await settle(verdict.transactions, of: check)
            check.status = .done
        }
        check.updatedAt = now
        batch.books.checks[check.id] = check
        batch.books.writes.checks[check.id] = check
        return .subscriptionCheckApplied(checkID: check.id, status: check.status.rawValue, outcome: check.outcome)
    }

    /// - Returns: `renewed`, `revoked`, `expired` or `unchanged`.
    private func settle(_ transactions: [VerifiedTransaction], of check: SubscriptionCheck) async throws -> String {
        let first = try await batch.bound(originalTransactionID: check.originalTransactionID)
        let accountID = first?.accountID ?? check.accountID
        let cause = Cause(
            app: AppScope.key(ofStored: check.accountID), receiptID: check.receiptID ?? first?.receiptID,
            notificationID: check.receiptID == nil ? first?.notificationID : nil, environment: first?.environment,
            // Subscription checks ask Apple's Server API.
            store: StoreEvidence.appleStore)
        var outcome = "unchanged"
        var seen: Set<String> = []
        for transaction in transactions
        where transaction.originalTransactionID == check.originalTransactionID
            && seen.insert(transaction.transactionID).inserted
        {
            let decision = try await settle(
                .transactionVerified(
                    transaction, source: .subscriptionCheck(checkID: check.id, accountID: accountID, cause: cause)))
            if decision.credit != nil {
                outcome = "renewed"
            } else if decision.outcome == .refunded, decision.reason == nil {
                outcome = "revoked"
            }
        }
        guard outcome == "unchanged", check.phase == .after else { return outcome }

        // An hour past the expiry and Apple reports no renewal: the subscription may have ended.
        let bound = try await batch.bound(originalTransactionID: check.originalTransactionID)
        let state = SettlementState(
            bound: bound, accounts: [accountID: try await batch.account(accountID, balances: false)])
        let lapse = engine(forAccount: accountID).concludeLapse(
            entitlement: check.entitlement, state: state, cause: cause, now: now)
        try await batch.apply(lapse.effects)
        return lapse.outcome
    }
}
