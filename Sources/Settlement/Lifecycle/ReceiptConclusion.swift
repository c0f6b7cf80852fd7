/// How a receipt ends once its transactions are settled, and the webhook that says so.
public struct ReceiptConclusion: Hashable, Sendable {
    /// The account credited, when anything was credited to the receipt's purchase.
    public var creditedAccountID: String?
    /// Why nothing was credited (nil when something was).
    public var reason: String?
    public var webhook: Webhook

    /// A verified receipt whose transactions were settled (`decisions`, in order): credited
    /// to the first account a transaction credited, else rejected with the reason that
    /// most needs a person.
    /// - Parameters:
    ///   - balances: the credited account's balances after the receipt, for the webhook.
    public init(
        receiptID: String, claimant: String, attempts: Int, carried: [CarriedTransaction], decisions: [Decision],
        balances: [String: Int]
    ) {
        let credited = decisions.first { $0.credit != nil }
        if let credited, let accountID = credited.accountID {
            creditedAccountID = accountID
            reason = nil
            webhook = Webhook(
                type: .receiptCredited, accountID: accountID, receiptID: receiptID,
                data: .credited(
                    CreditedData(
                        transactions: carried, balances: balances,
                        order: decisions.last { $0.order != nil }?.order)))
        } else {
            let reason = Self.rejectionReason(carried.map(\.outcome))
            creditedAccountID = nil
            self.reason = reason
            webhook = Webhook(
                type: .receiptRejected, accountID: claimant, receiptID: receiptID,
                data: .ended(EndedData(reason: reason, attempts: attempts, transactions: carried)))
        }
    }

    /// The webhook of a receipt that ended unsettled (rejected, or dead).
    public static func ended(
        _ ending: VerdictStep.Ending, reason: String, receiptID: String, accountID: String, attempts: Int
    ) -> Webhook {
        Webhook(
            type: ending == .dead ? .receiptDead : .receiptRejected, accountID: accountID, receiptID: receiptID,
            data: .ended(EndedData(reason: reason, attempts: attempts, transactions: nil)))
    }

    /// Why a valid receipt credited nothing: the reason that most needs a person first.
    static func rejectionReason(_ outcomes: [TransactionOutcome]) -> String {
        let outcomes = Set(outcomes)
        // Paid for, but the catalog cannot say what to give: the catalog needs fixing.
        for reason in [TransactionOutcome.unknownProduct, .refunded, .boundToAnotherAccount, .alreadyCredited]
        where outcomes.contains(reason) {
            return reason.rawValue
        }
        return "no_transactions"
    }
}
