import Foundation

/// What the engine needs to know to decide one event, read by the store beforehand.
///
/// Only facts, no rules: the store reads the rows, the engine decides.
public struct SettlementState: Hashable, Sendable {
    /// The transaction as recorded before, if it ever was.
    public var known: KnownTransaction?
    /// The subscription's binding: its first transaction that credited an account.
    public var bound: KnownTransaction?
    /// The account behind the transaction's `appAccountToken`, if the token is known.
    public var tokenOwner: String?
    /// The binding of the subscription this one replaces (its
    /// ``VerifiedTransaction/linkedOriginalTransactionID``), if that one was credited.
    public var linked: KnownTransaction?
    /// The accounts the event may touch, by id (those not read are taken as new).
    public var accounts: [String: AccountState]

    public init(
        known: KnownTransaction? = nil, bound: KnownTransaction? = nil, tokenOwner: String? = nil,
        accounts: [String: AccountState] = [:], linked: KnownTransaction? = nil
    ) {
        self.known = known
        self.bound = bound
        self.tokenOwner = tokenOwner
        self.linked = linked
        self.accounts = accounts
    }

    func account(_ id: String) -> AccountState { accounts[id] ?? AccountState() }
}

/// How a transaction stands in the books.
public enum TransactionState: String, Codable, Hashable, Sendable, CaseIterable {
    /// Credited to its account (again, after a refund Apple reversed).
    case credited
    /// Refunded by Apple: before credit (no ledger entry), or after (a `refund` debit).
    case refunded
    /// Revoked by Apple (family sharing ended, say): like `refunded`, with a `revoke` debit.
    case revoked
    /// Seen but not paid for.
    case unpaid
}

/// A transaction recorded before, with what it moved.
public struct KnownTransaction: Hashable, Sendable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    public var state: TransactionState
    /// The app it belongs to (``Cause/app``): the app of the event that first recorded it.
    public var app: String
    /// The account it credited; nil if it never credited one.
    public var accountID: String?
    public var receiptID: String?
    public var notificationID: String?
    public var environment: String?
    public var expiresDate: Date?
    /// The entitlement its credit granted.
    public var entitlement: String?
    /// Its `purchase` ledger entry, if it credited a currency.
    public var purchase: Money?
    /// Its `refund` and `revoke` entries added up (negative), if it was ever debited: a
    /// transaction may be taken back in steps (a second partial refund).
    public var debit: Money?
    /// How many take-backs debited it: the next one is step `debitSteps + 1`.
    public var debitSteps: Int
    /// Its `write_off` entries added up: the part of its debits the balance could not give
    /// (policy `clamp`).
    public var writtenOff: Money?
    /// Whether a `refund_reversal` entry exists for it.
    public var reversed: Bool
    /// The units it was bought in (a quantity-based refund takes some of them back).
    public var quantity: Int
    /// Its revenue entries added up: what was paid, what take-backs gave back.
    public var revenue: RevenueSoFar?
    /// When it was bought (for a subscription's first transaction: when the subscription began).
    public var purchaseDate: Date?

    public init(
        transactionID: String, originalTransactionID: String, productID: String, state: TransactionState,
        accountID: String?, receiptID: String? = nil, notificationID: String? = nil, environment: String? = nil,
        expiresDate: Date? = nil, entitlement: String? = nil, purchase: Money? = nil, debit: Money? = nil,
        writtenOff: Money? = nil, reversed: Bool = false, quantity: Int = 1, debitSteps: Int? = nil, app: String = ""
    ) {
        self.app = app
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.state = state
        self.accountID = accountID
        self.receiptID = receiptID
        self.notificationID = notificationID
        self.environment = environment
        self.expiresDate = expiresDate
        self.entitlement = entitlement
        self.purchase = purchase
        self.debit = debit
        self.debitSteps = debitSteps ?? (debit == nil ? 0 : 1)
        self.writtenOff = writtenOff
        self.reversed = reversed
        self.quantity = quantity
    }

    /// Notes one of its ledger entries, in the order they were written: the first purchase
    /// counts (the schema allows one), debits and write-offs add up (one per take-back
    /// step), a reversal is a flag.
    /// This transaction, bought at `date`.
    public func dated(_ date: Date?) -> KnownTransaction {
        var dated = self
        dated.purchaseDate = date
        return dated
    }

    /// Notes one of its revenue entries, in the order they were written.
    public mutating func add(revenue entry: RevenueEntry) {
        if revenue == nil {
            guard entry.kind == .purchase || entry.kind == .renewal else { return }
            revenue = RevenueSoFar(paid: entry)
        } else {
            revenue?.add(entry)
        }
    }

    public mutating func add(_ kind: LedgerKind, _ money: Money) {
        switch kind {
        case .purchase: purchase = purchase ?? money
        case .refund, .revoke:
            debit = Money(currency: money.currency, amount: (debit?.amount ?? 0) + money.amount)
            debitSteps += 1
        case .writeOff: writtenOff = Money(currency: money.currency, amount: (writtenOff?.amount ?? 0) + money.amount)
        case .refundReversal: reversed = true
        case .adjustment: break
        }
    }

    /// Whether it ever credited an account: a ledger entry, or an entitlement.
    var everCredited: Bool {
        guard accountID != nil else { return false }
        return state == .credited || entitlement != nil || purchase != nil || debit != nil
    }
}

/// An amount of one currency.
public struct Money: Hashable, Sendable {
    public var currency: String
    public var amount: Int

    public init(currency: String, amount: Int) {
        self.currency = currency
        self.amount = amount
    }
}

/// What an account holds, as far as an event needs it.
public struct AccountState: Hashable, Sendable {
    /// Whether the account has a row yet.
    public var exists: Bool
    /// Entitlements it holds, by name: their end (nil: for ever).
    public var entitlements: [String: EntitlementEnd]
    /// Catalog products it ever bought (refunded ones too), for first-purchase rules.
    public var purchasedProducts: Set<String>
    /// Its balances by currency, for the events that debit (refunds, revocations): read
    /// only for those.
    public var balances: [String: Int]

    public init(
        exists: Bool = false, entitlements: [String: EntitlementEnd] = [:], purchasedProducts: Set<String> = [],
        balances: [String: Int] = [:]
    ) {
        self.exists = exists
        self.entitlements = entitlements
        self.purchasedProducts = purchasedProducts
        self.balances = balances
    }
}

/// When an entitlement ends; `expiresAt` nil is for ever.
public struct EntitlementEnd: Hashable, Sendable {
    public var expiresAt: Date?
    public var originalTransactionID: String?

    public init(expiresAt: Date?, originalTransactionID: String? = nil) {
        self.expiresAt = expiresAt
        self.originalTransactionID = originalTransactionID
    }

    /// The later of two ends, where nil means never.
    static func later(_ a: Date?, _ b: Date?) -> Date? {
        guard let a, let b else { return nil }
        return max(a, b)
    }
}
