import GRDB

/// What became of one Apple transaction a receipt carried.
public enum TransactionOutcome: String, Codable, Hashable, Sendable, CaseIterable {
    /// This receipt credited it.
    case credited
    /// An earlier receipt (of any account) already credited it: nothing credited.
    case alreadyCredited = "already_credited"
    /// The catalog does not sell this product: nothing credited.
    case unknownProduct = "unknown_product"
    /// Apple refunded or revoked it: nothing credited, and it never will be.
    case refunded
}

extension TransactionOutcome: DatabaseValueConvertible {}

/// Why a ledger entry moved a balance.
public enum LedgerKind: String, Codable, Hashable, Sendable, CaseIterable {
    case purchase
    case refund
    case adjustment
}

extension LedgerKind: DatabaseValueConvertible {}
