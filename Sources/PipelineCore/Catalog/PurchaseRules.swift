import Foundation

/// What the server enforces before a purchase, because the store cannot: when a product
/// sells, how often, and what the first purchase gets.
///
/// ```json
/// "rules": {
///   "sale": {"from": "2026-12-01T00:00:00Z", "until": "2026-12-08T00:00:00Z"},
///   "daily_limit": 3,
///   "first_purchase": {"bonus": {"currency": "coins", "amount": 100}, "apple_product_id": "com.example.tier0"}
/// }
/// ```
public struct PurchaseRules: Codable, Hashable, Sendable {
    public var sale: SaleWindow?
    /// Orders per account per day, in the catalog's time zone.
    public var dailyLimit: Int?
    public var firstPurchase: FirstPurchase?

    public init(sale: SaleWindow? = nil, dailyLimit: Int? = nil, firstPurchase: FirstPurchase? = nil) {
        self.sale = sale
        self.dailyLimit = dailyLimit
        self.firstPurchase = firstPurchase
    }

    enum CodingKeys: String, CodingKey {
        case sale
        case dailyLimit = "daily_limit"
        case firstPurchase = "first_purchase"
    }
}

/// When a product sells: from `from` (inclusive) until `until` (exclusive), either end open.
public struct SaleWindow: Codable, Hashable, Sendable {
    public var from: Date?
    public var until: Date?

    public init(from: Date? = nil, until: Date? = nil) {
        self.from = from
        self.until = until
    }

    public func contains(_ date: Date) -> Bool {
        (from.map { date >= $0 } ?? true) && (until.map { date < $0 } ?? true)
    }
}

/// What an account's first purchase of a product gets: a bonus on top of the grant, and
/// or a lower price (another Apple product id, which the order tells the app to buy).
public struct FirstPurchase: Codable, Hashable, Sendable {
    public var bonus: Grant?
    public var appleProductID: String?

    public init(bonus: Grant? = nil, appleProductID: String? = nil) {
        self.bonus = bonus
        self.appleProductID = appleProductID
    }

    enum CodingKeys: String, CodingKey {
        case bonus
        case appleProductID = "apple_product_id"
    }
}

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
