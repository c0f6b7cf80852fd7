/// One inconsistency ``SQLiteDatabase/audit()`` found. None at all means the books balance.
public struct AuditFinding: Codable, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        /// A balance differs from the sum of its ledger entries.
        case balanceMismatch = "balance_mismatch"
        /// Ledger entries for a currency the account has no balance row for.
        case ledgerWithoutBalance = "ledger_without_balance"
        /// One Apple transaction has more than one ledger entry of one kind of credit.
        case transactionCreditedTwice = "transaction_credited_twice"
        /// One transaction's debits (refunds and revocations, taken in steps) add up to more
        /// than it credited, or fall on more than one account. (The raw value is the name
        /// operators knew when one debit was all a transaction could have.)
        case transactionRefundedTwice = "transaction_refunded_twice"
        /// A transaction refunded or revoked after it credited coins, without the debit.
        case refundWithoutDebit = "refund_without_debit"
        /// A credited, rejected or dead receipt without its notification.
        case finalReceiptWithoutNotification = "final_receipt_without_notification"
        /// A receipt marked credited with no transaction that it credited.
        case creditedReceiptWithoutCredit = "credited_receipt_without_credit"
        /// An order marked paid whose transaction did not credit the order's account.
        case paidOrderWithoutCredit = "paid_order_without_credit"
    }

    public var kind: Kind
    public var accountID: String?
    public var currency: String?
    public var receiptID: String?
    public var transactionID: String?
    /// A sentence for an operator, with the numbers.
    public var detail: String

    public init(
        kind: Kind, accountID: String? = nil, currency: String? = nil, receiptID: String? = nil,
        transactionID: String? = nil, detail: String
    ) {
        self.kind = kind
        self.accountID = accountID
        self.currency = currency
        self.receiptID = receiptID
        self.transactionID = transactionID
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey {
        case kind
        case accountID = "account_id"
        case currency
        case receiptID = "receipt_id"
        case transactionID = "transaction_id"
        case detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}
