import Foundation
import PipelineCore

/// One way money or access moves: what the settlement engine is asked to decide.
///
/// Receipts, Apple's server notifications, subscription checks and operators all become
/// these events; none of them carries a rule of its own.
public enum SettlementEvent: Hashable, Sendable {
    /// Apple vouched for a transaction: a purchase, or a renewal of a subscription.
    case transactionVerified(VerifiedTransaction, source: Source)
    /// A store refunded (`.refund`) or revoked (`.revoke`) a transaction, wholly or in part:
    /// the transaction carries the share taken back so far, all refunds of it together
    /// (``VerifiedTransaction/revocationPercentage``, or ``VerifiedTransaction/refundedQuantity``
    /// of its units), and the engine takes what earlier take-backs did not.
    case takenBack(VerifiedTransaction, kind: TakeBackKind, cause: Cause)
    /// Apple reversed an earlier refund.
    case refundReversed(VerifiedTransaction, cause: Cause)
    /// A subscription period ended without a renewal.
    case expired(VerifiedTransaction, cause: Cause)
    /// Renewal failed, and Apple keeps the subscription alive until `until` (billing grace period).
    case gracePeriod(VerifiedTransaction, until: Date?, cause: Cause)
    /// Apple asks what the player consumed before it decides a refund.
    case consumptionRequest(VerifiedTransaction, cause: Cause)
    /// An operator moves a balance by hand.
    case adjustment(Adjustment)
    /// An operator grants an entitlement until a date.
    case entitlementGrant(EntitlementGrant)

    /// Who reported a verified transaction: the claim decides how its account is chosen.
    public enum Source: Hashable, Sendable {
        /// A receipt an account submitted, perhaps naming an order it made first.
        case receipt(receiptID: String, claimant: String, order: OrderClaim?, cause: Cause)
        /// An App Store Server Notification (`DID_RENEW`, `SUBSCRIBED`).
        case notification(Cause)
        /// The scheduler's check of a subscription around its expiry.
        case subscriptionCheck(checkID: String, accountID: String, cause: Cause)

        /// What the change is recorded against.
        public var cause: Cause {
            switch self {
            case .receipt(_, _, _, let cause), .notification(let cause), .subscriptionCheck(_, _, let cause): cause
            }
        }
    }
}

/// What caused a change: the receipt or the store's notification being applied, and the app
/// it belongs to.
public struct Cause: Hashable, Sendable {
    /// The app the event belongs to (``AppScope/key``: `""` for the default app): the app whose
    /// credential proved it, or whose account submitted it. It moves that app's money only.
    public var app: String
    public var receiptID: String?
    public var notificationID: String?
    /// Apple's `notificationUUID`, told in the webhook.
    public var notificationUUID: String?
    /// `Production` or `Sandbox`, recorded with a transaction seen for the first time.
    public var environment: String?
    /// The store whose word it is (``StoreEvidence/store``: `apple`, `google`, `huawei`, …),
    /// as revenue is reported by; `""` when no store's evidence caused it.
    public var store: String

    public init(
        app: String = "", receiptID: String? = nil, notificationID: String? = nil, notificationUUID: String? = nil,
        environment: String? = nil, store: String = ""
    ) {
        self.app = app
        self.store = store
        self.receiptID = receiptID
        self.notificationID = notificationID
        self.notificationUUID = notificationUUID
        self.environment = environment
    }
}

/// The order a receipt names, when that order pays for this transaction.
public struct OrderClaim: Hashable, Sendable {
    public var orderID: String
    public var accountID: String
    /// The catalog product ordered.
    public var productID: String
    /// The ordered product as the catalog sells it; nil when it no longer does.
    public var product: Product?

    public init(orderID: String, accountID: String, productID: String, product: Product?) {
        self.orderID = orderID
        self.accountID = accountID
        self.productID = productID
        self.product = product
    }
}

/// A refund or a revocation.
public enum TakeBackKind: String, Hashable, Sendable {
    case refund, revoke

    var ledgerKind: LedgerKind { self == .refund ? .refund : .revoke }
    var state: TransactionState { self == .refund ? .refunded : .revoked }
}

/// An operator's correction of a balance: a grant (positive) or a revoke (negative).
public struct Adjustment: Hashable, Sendable {
    /// The adjustment's own id: its ledger entries carry `adjustment:<id>` as their
    /// transaction, so one adjustment is posted once.
    public var id: String
    public var accountID: String
    public var currency: String
    /// Signed: positive credits, negative debits.
    public var amount: Int
    public var reason: String
    /// Who did it: an operator's name, on the record and in the webhook.
    public var operatorName: String

    public init(id: String, accountID: String, currency: String, amount: Int, reason: String, operatorName: String) {
        self.id = id
        self.accountID = accountID
        self.currency = currency
        self.amount = amount
        self.reason = reason
        self.operatorName = operatorName
    }

    /// The transaction id its ledger entries and flags carry.
    public var ledgerTag: String { "adjustment:\(id)" }
}

/// An operator's grant of an entitlement until a date (a date passed ends it).
public struct EntitlementGrant: Hashable, Sendable {
    public var id: String
    public var accountID: String
    public var entitlement: String
    public var until: Date
    public var reason: String
    public var operatorName: String

    public init(
        id: String, accountID: String, entitlement: String, until: Date, reason: String, operatorName: String
    ) {
        self.id = id
        self.accountID = accountID
        self.entitlement = entitlement
        self.until = until
        self.reason = reason
        self.operatorName = operatorName
    }
}

extension SettlementEvent {
    /// The Apple transaction the event is about; nil for an adjustment.
    public var transaction: VerifiedTransaction? {
        switch self {
        case .transactionVerified(let transaction, _), .takenBack(let transaction, _, _),
            .refundReversed(let transaction, _), .expired(let transaction, _), .gracePeriod(let transaction, _, _),
            .consumptionRequest(let transaction, _):
            transaction
        case .adjustment, .entitlementGrant:
            nil
        }
    }

    /// What caused it; nil for an operator's adjustment or grant, which names its account.
    public var cause: Cause? {
        switch self {
        case .transactionVerified(_, let source): source.cause
        case .takenBack(_, _, let cause), .refundReversed(_, let cause), .expired(_, let cause),
            .gracePeriod(_, _, let cause), .consumptionRequest(_, let cause):
            cause
        case .adjustment, .entitlementGrant: nil
        }
    }

    /// Whether deciding it weighs what accounts hold (entitlements, products bought). An
    /// operator's adjustment or grant needs only the account: so a grant can replace an
    /// entitlement whose stored end cannot be read.
    public var weighsHoldings: Bool {
        switch self {
        case .adjustment, .entitlementGrant: false
        default: true
        }
    }

    /// Whether deciding it may debit a balance (a refund or revocation, or a verified
    /// transaction Apple cancelled): the state then needs the accounts' balances.
    public var mayDebit: Bool {
        switch self {
        case .takenBack: true
        case .adjustment: true  // its webhook tells the balance after it
        case .transactionVerified(let transaction, _): transaction.cancellationDate != nil
        default: false
        }
    }
}
