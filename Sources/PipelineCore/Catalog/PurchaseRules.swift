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
