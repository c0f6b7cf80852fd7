import Foundation
import PipelineCore

/// Why an order is refused: each case names the rule.
public enum OrderRefusal: Hashable, Sendable {
    case saleNotStarted(from: Date)
    case saleEnded(until: Date)
    case dailyLimitReached(limit: Int)
    case orderAlreadyOpen(orderID: String)

    /// The machine-readable code of the API's error.
    public var code: String {
        switch self {
        case .saleNotStarted: "sale_not_started"
        case .saleEnded: "sale_ended"
        case .dailyLimitReached: "daily_limit_reached"
        case .orderAlreadyOpen: "order_already_open"
        }
    }

    public var message: String {
        switch self {
        case .saleNotStarted(let from): "the product is on sale from \(Timestamp.format(from))"
        case .saleEnded(let until): "the product's sale ended at \(Timestamp.format(until))"
        case .dailyLimitReached(let limit): "the account has reached the product's limit of \(limit) a day"
        case .orderAlreadyOpen(let id): "the account already has an open order for the product (\(id))"
        }
    }
}

/// What an account has done today with a product: what the rules are checked against.
public struct PurchaseHistory: Hashable, Sendable {
    /// Orders made today (local day) that are open or paid.
    public var ordersToday: Int
    /// An order that is open and not yet expired.
    public var openOrderID: String?
    /// Whether the account ever bought the product.
    public var hasPurchased: Bool

    public init(ordersToday: Int = 0, openOrderID: String? = nil, hasPurchased: Bool = false) {
        self.ordersToday = ordersToday
        self.openOrderID = openOrderID
        self.hasPurchased = hasPurchased
    }
}

extension Product {
    /// The first rule that refuses a new order at `now`, or nil when one may be made.
    public func refusal(at now: Date, history: PurchaseHistory) -> OrderRefusal? {
        if let sale = rules?.sale {
            if let from = sale.from, now < from { return .saleNotStarted(from: from) }
            if let until = sale.until, now >= until { return .saleEnded(until: until) }
        }
        if let open = history.openOrderID { return .orderAlreadyOpen(orderID: open) }
        if let limit = rules?.dailyLimit, history.ordersToday >= limit { return .dailyLimitReached(limit: limit) }
        return nil
    }

    /// Whether a purchase now is the account's first of this product, and so gets the
    /// first-purchase price or bonus.
    public func isFirstPurchase(_ history: PurchaseHistory) -> Bool {
        rules?.firstPurchase != nil && !history.hasPurchased
    }

    /// The Apple product id the app should buy: the first-purchase price's when it applies.
    public func appleProductIDToBuy(firstPurchase: Bool) -> String {
        firstPurchase ? rules?.firstPurchase?.appleProductID ?? appleProductID : appleProductID
    }
}

/// A calendar day in the catalog's time zone, as an interval of instants.
public struct PurchaseDay: Hashable, Sendable {
    public var start: Date
    public var end: Date

    /// The local day that contains `instant` in `timeZone`.
    public init(containing instant: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let interval = calendar.dateInterval(of: .day, for: instant)!
        start = interval.start
        end = interval.end
    }
}

/// Which purchase pays for an order.
public enum OrderPayment {
    /// A transaction a receipt carried, and whether it can still pay an order.
    public struct Candidate: Hashable, Sendable {
        public var transaction: VerifiedTransaction
        /// Never seen before, not refunded, not a renewal of a subscription already bound.
        public var isFresh: Bool

        public init(transaction: VerifiedTransaction, isFresh: Bool) {
            self.transaction = transaction
            self.isFresh = isFresh
        }
    }

    /// An order pays for one purchase: among the receipt's fresh transactions, the one
    /// whose Apple product is the ordered product's, else the first (a mismatch); nil when
    /// none is fresh.
    public static func payingTransaction(ordered product: Product?, among candidates: [Candidate]) -> String? {
        let fresh = candidates.filter { $0.isFresh && $0.transaction.cancellationDate == nil }.map(\.transaction)
        let ordered = fresh.first { product?.storeProductIDs.contains($0.productID) == true }
        return (ordered ?? fresh.first)?.transactionID
    }
}
