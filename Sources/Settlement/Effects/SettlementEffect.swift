import Foundation

/// One change the engine decided; the store applies a decision's effects in order, in
/// the transaction that read its state.
public enum SettlementEffect: Hashable, Sendable {
    /// The account gets its row, if it has none yet.
    case openAccount(String)
    /// A transaction seen for the first time is recorded: its id is what makes it credit once.
    case recordTransaction(TransactionRecord)
    /// A recorded transaction changes state (refunded, revoked, credited again).
    case updateTransaction(transactionID: String, state: TransactionState, cancellationDate: Date?)
    /// A refund recorded before the transaction ever credited is forgotten, so that a
    /// receipt may still credit it.
    case forgetTransaction(transactionID: String)
    /// A ledger entry, and the balance moved by its amount.
    case post(LedgerPosting)
    /// An entitlement now ends at this end (created when the account lacks it).
    case setEntitlement(accountID: String, name: String, end: EntitlementEnd)
    /// A purchase was credited to another account than the one that claimed it.
    case recordConflict(ClaimConflict)
    /// An account needs a human's look: a refund took its balance below zero, or
    /// would have (see ``NegativeBalancePolicy``).
    case flagAccount(AccountFlag)
    /// The order the receipt named is paid.
    case closeOrder(OrderClosing)
    /// A webhook for the backend, queued in the outbox.
    case send(Webhook)
    /// A line of the revenue ledger, written with the credit or take-back it prices.
    case recordRevenue(RevenueEntry)
}

/// A new row for a transaction.
public struct TransactionRecord: Hashable, Sendable {
    /// The app it belongs to: the app of the event that recorded it (``Cause/app``).
    public var app: String
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    public var quantity: Int
    public var environment: String?
    public var receiptID: String?
    public var notificationID: String?
    public var accountID: String?
    public var purchaseDate: Date?
    public var expiresDate: Date?
    public var cancellationDate: Date?
    public var state: TransactionState
    public var entitlement: String?
    public var catalogProductID: String?
    public var orderID: String?
    public var binding: BindingPath?
    /// The offer it was bought with, as the store named it (``VerifiedTransaction/offerType``).
    public var offerType: String? = nil
    public var offerID: String? = nil
}

/// One signed movement of a balance.
public struct LedgerPosting: Hashable, Sendable {
    public var accountID: String
    public var currency: String
    public var amount: Int
    public var kind: LedgerKind
    public var receiptID: String?
    public var notificationID: String?
    public var transactionID: String?
    /// For a `refund`, `revoke` or `write_off`: the take-back it belongs to, 1 for a
    /// transaction's first, 2 for its second (a second partial refund); 0 for other kinds.
    /// The ledger keeps one debit per transaction and step (schema v14).
    public var step: Int = 0
}

/// Why a ledger entry moved a balance.
public enum LedgerKind: String, Codable, Hashable, Sendable, CaseIterable {
    /// A credit for an Apple transaction (a receipt's, or a renewal notification's).
    case purchase
    /// A debit of what a transaction credited: Apple refunded it.
    case refund
    /// A debit of what a transaction credited: Apple revoked it (family sharing, say).
    case revoke
    /// A credit again of what a refund took: Apple reversed the refund.
    case refundReversal = "refund_reversal"
    /// A credit of the part of a debit the balance could not give, beside that debit:
    /// the refund is recorded whole, and the balance stops at zero (policy `clamp`).
    case writeOff = "write_off"
    /// An operator's correction.
    case adjustment
}

/// How a purchase's account was chosen.
public enum BindingPath: String, Codable, Hashable, Sendable, CaseIterable {
    /// The account of the order the receipt names.
    case order
    /// The account the transaction's `appAccountToken` belongs to.
    case appAccountToken = "app_account_token"
    /// The account that first bought the subscription (renewals).
    case originalTransaction = "original_transaction"
    /// The account that submitted the receipt.
    case submitter
    /// The account the store names for the purchase (``VerifiedTransaction/storeAccountID``).
    case storeAccount = "store_account"
}

/// The account a verified purchase credits, and the rule that chose it.
public struct Binding: Hashable, Sendable {
    public var accountID: String
    public var path: BindingPath
}

/// A purchase one account claimed and the binding rules credited to another.
public struct ClaimConflict: Hashable, Sendable {
    public var transactionID: String
    public var originalTransactionID: String
    public var receiptID: String?
    public var claimantAccountID: String
    public var creditedAccountID: String
    public var binding: BindingPath
}

/// An order closed by the payment for it.
public struct OrderClosing: Hashable, Sendable {
    public var orderID: String
    /// `true`: Apple's product is the ordered one (`fulfilled`); else `mismatched`.
    public var matches: Bool
    public var reason: String
    public var receiptID: String?
    public var transactionID: String
    public var creditedProductID: String
}

/// Why an account was flagged.
public enum AccountFlagReason: String, Codable, Hashable, Sendable, CaseIterable {
    /// A refund took a balance below zero (policy `allow`): `amount` is the balance after it.
    case negativeBalance = "negative_balance"
    /// A refund took less than its debit, the rest written off (policy `clamp`): `amount`
    /// is what was written off.
    case refundShortfall = "refund_shortfall"
}

/// An account flagged by a refund, once per transaction and reason.
public struct AccountFlag: Hashable, Sendable {
    public var accountID: String
    public var reason: AccountFlagReason
    public var currency: String
    public var amount: Int
    public var transactionID: String
    public var notificationID: String?

    public init(
        accountID: String, reason: AccountFlagReason, currency: String, amount: Int, transactionID: String,
        notificationID: String? = nil
    ) {
        self.accountID = accountID
        self.reason = reason
        self.currency = currency
        self.amount = amount
        self.transactionID = transactionID
        self.notificationID = notificationID
    }
}
