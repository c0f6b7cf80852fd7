import Foundation
import PipelineCore

/// One line of the revenue ledger, beside the coin ledger: what a player paid for one
/// transaction (a purchase, a renewal), or what a refund, revocation or chargeback gave back
/// (negative), or a reversal restored. Money in whole minor units of `currency` (ISO 4217),
/// never floating point; nothing is ever updated in place.
public struct RevenueEntry: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case purchase, renewal, refund, revocation, reversal
    }

    /// The app it belongs to (``Cause/app``).
    public var app: String
    /// The store that was paid (``Cause/store``: `apple`, `google`, …).
    public var store: String
    public var accountID: String
    public var transactionID: String
    public var originalTransactionID: String
    /// The catalog's product.
    public var productID: String
    public var kind: Kind
    public var currency: String
    /// What the player paid, as the store reported it (tax included where the store includes
    /// it, as Apple's price does); negative for what a take-back gave back.
    public var gross: Int64
    /// ``gross`` after the store's commission at ``commissionBasisPoints``, rounded toward zero.
    public var proceeds: Int64
    /// The store's commission, in hundredths of a percent (3000 is 30 %).
    public var commissionBasisPoints: Int
    /// Where it was bought, as the store names the country (Apple's storefront).
    public var country: String?
    /// Priced from the catalog (`prices`): the store reported no price.
    public var estimated: Bool
    /// A period of an auto-renewable subscription: what the subscription figures count (a
    /// first period of price 0 is a free trial).
    public var subscription: Bool
    public var receiptID: String?
    public var notificationID: String?
    /// For a take-back, which of the transaction's take-backs (1, 2, …); 0 otherwise.
    public var step: Int
    /// The tax in ``gross`` where the store reports it apart (Google, Stripe); nil where it
    /// does not say.
    public var tax: Int64?
    /// A subscription period's end, as the store signed it.
    public var periodEnds: Date?
    /// The period's price scaled to a month (``RevenueEntry/monthly(_:from:to:)``): what it adds
    /// to monthly recurring revenue while it runs.
    public var monthlyRecurring: Int64?

    public init(
        app: String, store: String = "", accountID: String, transactionID: String, originalTransactionID: String,
        productID: String,
        kind: Kind, currency: String, gross: Int64, proceeds: Int64, commissionBasisPoints: Int,
        country: String? = nil, estimated: Bool = false, subscription: Bool = false, receiptID: String? = nil,
        notificationID: String? = nil, step: Int = 0, tax: Int64? = nil, periodEnds: Date? = nil,
        monthlyRecurring: Int64? = nil
    ) {
        self.app = app
        self.store = store
        self.accountID = accountID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.kind = kind
        self.currency = currency
        self.gross = gross
        self.proceeds = proceeds
        self.commissionBasisPoints = commissionBasisPoints
        self.country = country
        self.estimated = estimated
        self.subscription = subscription
        self.receiptID = receiptID
        self.notificationID = notificationID
        self.step = step
        self.tax = tax
        self.periodEnds = periodEnds
        self.monthlyRecurring = monthlyRecurring
    }

    /// A month: a year's twelfth (30.44 days), in seconds.
    public static let month: Int64 = 2_629_746

    /// A period's price scaled to a month, rounded toward zero; nil without both ends.
    public static func monthly(_ gross: Int64, from start: Date?, to end: Date?) -> Int64? {
        guard let start, let end else { return nil }
        let seconds = Int64(end.timeIntervalSince(start))
        guard seconds > 0 else { return nil }
        let (scaled, overflow) = gross.multipliedReportingOverflow(by: month)
        return overflow ? nil : scaled / seconds
    }
}

/// What a recorded transaction's revenue entries add up to: its payment, and what take-backs
/// gave back of it so far.
public struct RevenueSoFar: Hashable, Sendable {
    /// The payment (a purchase or renewal entry).
    public var paid: RevenueEntry
    /// Given back so far (positive), gross and proceeds, reversals deducted.
    public var givenBack: Int64 = 0
    public var proceedsGivenBack: Int64 = 0
    /// Tax given back so far (positive).
    public var taxGivenBack: Int64 = 0
    /// Take-back entries so far: the next is step `steps + 1`.
    public var steps: Int = 0

    public init(paid: RevenueEntry) {
        self.paid = paid
    }

    /// Notes one of the transaction's entries, in the order they were written.
    public mutating func add(_ entry: RevenueEntry) {
        switch entry.kind {
        case .purchase, .renewal: paid = entry
        case .refund, .revocation:
            givenBack -= entry.gross
            proceedsGivenBack -= entry.proceeds
            taxGivenBack -= entry.tax ?? 0
            steps = max(steps, entry.step)
        case .reversal:
            givenBack -= entry.gross
            proceedsGivenBack -= entry.proceeds
            taxGivenBack -= entry.tax ?? 0
        }
    }
}

/// The stores' commission, by which proceeds are reckoned: 30 % by default; 15 % for a
/// developer in a small-business program (Apple's, Google's), and for a subscription's
/// periods after its first year.
public struct CommissionRates: Hashable, Sendable {
    /// Basis points (hundredths of a percent) of the standard rate.
    public var standard: Int
    /// The reduced rate (small business, a subscription's second year and on).
    public var reduced: Int
    /// The stores whose small-business program the developer is in: every sale there is at
    /// the reduced rate.
    public var smallBusinessStores: Set<String>

    public init(standard: Int = 3000, reduced: Int = 1500, smallBusinessStores: Set<String> = []) {
        self.standard = standard
        self.reduced = reduced
        self.smallBusinessStores = smallBusinessStores
    }

    /// The rates a catalog's `commission` says (the defaults where it is silent).
    public init(_ commission: CatalogCommission?) {
        self.init(
            standard: commission?.standardBasisPoints ?? 3000, reduced: commission?.reducedBasisPoints ?? 1500,
            smallBusinessStores: Set(commission?.smallBusinessStores ?? []))
    }

    /// The rate of a sale in `store`: reduced in a small-business store, or for a subscription
    /// period that starts a year or more after the subscription's first purchase.
    public func rate(store: String, subscriptionSince first: Date?, periodStarts: Date?) -> Int {
        if smallBusinessStores.contains(store) { return reduced }
        if let first, let periodStarts, periodStarts.timeIntervalSince(first) >= 365 * 86_400 { return reduced }
        return standard
    }

    /// `gross` less the commission at `basisPoints`, rounded toward zero (never more than the
    /// store pays).
    public static func proceeds(of gross: Int64, basisPoints: Int) -> Int64 {
        let keep = Int64(10_000 - min(max(basisPoints, 0), 10_000))
        return (gross / 10_000) * keep + (gross % 10_000) * keep / 10_000
    }
}
