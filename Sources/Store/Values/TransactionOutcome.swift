import GRDB

/// What became of one Apple transaction a receipt carried.
public enum TransactionOutcome: String, Codable, Hashable, Sendable, CaseIterable {
    /// This receipt credited it.
    case credited
    /// An earlier receipt (of any account) already credited it: nothing credited.
    case alreadyCredited = "already_credited"
    /// The catalog does not sell this product: nothing credited.
    case unknownProduct = "unknown_product"
    /// Apple refunded or revoked it: nothing credited, and it never will be. When an
    /// earlier receipt had credited it, that credit is taken back (a `refund` debit).
    case refunded
    /// A renewal of a subscription another account bought first: credited to that account,
    /// not to this receipt's (renewals follow the original transaction, not the client).
    case boundToAnotherAccount = "bound_to_another_account"
}

extension TransactionOutcome: DatabaseValueConvertible {}

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
    case adjustment
}

extension LedgerKind: DatabaseValueConvertible {}
