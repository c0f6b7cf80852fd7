import Foundation

/// What the game sells, loaded from `IAP_CATALOG`, and the rules it sells it by.
///
/// ```json
/// {"time_zone": "Europe/Paris",
///  "negative_balance": "allow",
///  "products": [
///   {"product_id": "com.example.coins100", "type": "consumable", "grant": {"currency": "coins", "amount": 100},
///    "rules": {"daily_limit": 3, "first_purchase": {"bonus": {"currency": "coins", "amount": 100}}}},
///   {"product_id": "starter_pack", "apple_product_id": "com.example.tier5", "type": "consumable",
///    "grant": {"currency": "gems", "amount": 50}, "tier_default": true},
///   {"product_id": "winter_pack", "apple_product_id": "com.example.tier5", "type": "consumable",
///    "grant": {"currency": "coins", "amount": 900}, "rules": {"sale": {"from": "2026-12-01T00:00:00Z"}}},
///   {"product_id": "com.example.vip.monthly", "type": "auto_renewable", "entitlement": "vip"}
/// ]}
/// ```
public struct Catalog: Codable, Hashable, Sendable {
    public var products: [Product]

    /// Every currency a product grants, bonuses included: what an operator may adjust.
    public var currencies: Set<String> {
        Set(
            products.flatMap { product in
                [product.grant?.currency, product.rules?.firstPurchase?.bonus?.currency].compactMap { $0 }
            })
    }

    /// Every entitlement a product grants.
    public var entitlements: Set<String> { Set(products.compactMap(\.entitlement)) }

    /// Every entitlement an auto-renewable subscription grants: what the scheduler asks the
    /// store about around its expiry.
    public var renewingEntitlements: Set<String> {
        Set(products.filter { $0.kind == .autoRenewable }.compactMap(\.entitlement))
    }

    /// The IANA time zone whose days the daily limits count; UTC when omitted.
    public var rawTimeZone: String?
    /// `allow` or `clamp`: see ``negativeBalance``.
    public var rawNegativeBalance: String?
    /// What the stores keep of the app's sales (the revenue ledger's proceeds).
    public var commission: CatalogCommission?

    public init(products: [Product], timeZone: String? = nil, negativeBalance: NegativeBalancePolicy? = nil) {
        self.products = products
        self.rawTimeZone = timeZone
        self.rawNegativeBalance = negativeBalance?.rawValue
    }

    enum CodingKeys: String, CodingKey {
        case products
        case rawTimeZone = "time_zone"
        case rawNegativeBalance = "negative_balance"
        case commission
    }

    public var timeZone: TimeZone { rawTimeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")! }

    /// What a refund does when it would take a balance below zero; `allow` when omitted.
    public var negativeBalance: NegativeBalancePolicy {
        rawNegativeBalance.flatMap(NegativeBalancePolicy.init(rawValue:)) ?? .allow
    }

    /// The product with this catalog id, if the catalog sells it.
    public func product(_ productID: String) -> Product? {
        products.first { $0.productID == productID }
    }

    /// What a purchase of `storeProductID` (Apple's or Google's product id) credits.
    ///
    /// The store's product decides: the ordered product when the store's id is one of its
    /// ids, else the only product with that id, else the tier's default. ``Resolution/matchesOrder``
    /// is false when an order named another product (a mismatch to record).
    public func resolve(storeProductID: String, ordered: Product? = nil) -> Resolution? {
        if let ordered, ordered.storeProductIDs.contains(storeProductID) {
            return Resolution(product: ordered, matchesOrder: true)
        }
        let candidates = products.filter { $0.storeProductIDs.contains(storeProductID) }
        guard let product = candidates.count == 1 ? candidates[0] : candidates.first(where: \.isTierDefault) else {
            return nil
        }
        return Resolution(product: product, matchesOrder: ordered == nil)
    }

    public struct Resolution: Hashable, Sendable {
        public var product: Product
        public var matchesOrder: Bool

        public init(product: Product, matchesOrder: Bool) {
            self.product = product
            self.matchesOrder = matchesOrder
        }
    }

    /// Reads and checks a catalog file.
    /// - Throws: ``CatalogError`` naming the file and what is wrong with it.
    public static func load(path: String) throws(CatalogError) -> Catalog {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CatalogError("cannot read catalog file \(path)")
        }
        return try decode(data, source: path)
    }

    /// A price above this many minor units (ten million of a currency of two decimals) is a typo.
    public static let maximumPrice: Int64 = 1_000_000_000

    /// Decodes and checks a catalog from JSON.
    public static func decode(_ data: Data, source: String = "catalog") throws(CatalogError) -> Catalog {
        let catalog: Catalog
        do {
            catalog = try WireCoding.decoder().decode(Catalog.self, from: data)
        } catch {
            // Foundation reports a fraction or a number past 64 bits where a whole number is
            // taken as JSON that is not valid, naming no member: say what it is instead.
            if case .dataCorrupted(let context) = error as? DecodingError, context.codingPath.isEmpty,
                (try? JSONSerialization.jsonObject(with: data)) != nil
            {
                throw CatalogError(
                    "\(source): not a valid catalog: a number is a fraction or past 64 bits where a whole number is "
                        + "taken (amounts, prices in minor units, limits)")
            }
            throw CatalogError("\(source): not a valid catalog: \(describe(error))")
        }
        try catalog.validate(source: source)
        return catalog
    }

    /// Rejects catalogs that would credit nonsense or sell by rules that cannot hold:
    /// duplicates, empty grants, absurd amounts, empty sale windows, tiers without a default.
    public func validate(source: String = "catalog") throws(CatalogError) {
        if let zone = rawTimeZone, TimeZone(identifier: zone) == nil {
            throw CatalogError("\(source): time_zone \(zone) is not an IANA time zone (e.g. Europe/Paris, UTC)")
        }
        if let policy = rawNegativeBalance, NegativeBalancePolicy(rawValue: policy) == nil {
            throw CatalogError(
                "\(source): negative_balance \(policy) is not one of "
                    + NegativeBalancePolicy.allCases.map(\.rawValue).joined(separator: ", "))
        }
        try commission?.validate(source: source)
        var seen = Set<String>()
        for product in products {
            let name = "\(source): product \(product.productID.isEmpty ? "(empty id)" : product.productID)"
            guard !product.productID.isEmpty else { throw CatalogError("\(name): product_id is empty") }
            guard seen.insert(product.productID).inserted else { throw CatalogError("\(name): listed twice") }
            guard product.kind != nil else {
                throw CatalogError(
                    "\(name): unknown type \(product.rawType) (expected one of "
                        + Product.Kind.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            if product.rawAppleProductID?.isEmpty == true { throw CatalogError("\(name): apple_product_id is empty") }
            if product.rawGoogleProductID?.isEmpty == true { throw CatalogError("\(name): google_product_id is empty") }
            if let grant = product.grant { try Self.check(grant, "grant", name) }
            if let entitlement = product.entitlement, entitlement.isEmpty {
                throw CatalogError("\(name): entitlement is empty")
            }
            guard product.grant != nil || product.entitlement != nil else {
                throw CatalogError("\(name): grants nothing (needs grant or entitlement)")
            }
            if let rules = product.rules { try Self.check(rules, of: product, name) }
            for (currency, amount) in product.prices ?? [:] {
                guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                    throw CatalogError("\(name): prices.\(currency) is not an ISO 4217 code (three capitals: CNY, USD)")
                }
                guard (1...Self.maximumPrice).contains(amount) else {
                    throw CatalogError("\(name): prices.\(currency) must be 1...\(Self.maximumPrice) minor units")
                }
            }
        }
        try validateTiers(source: source)
    }

    private static func check(_ rules: PurchaseRules, of product: Product, _ name: String) throws(CatalogError) {
        if let sale = rules.sale {
            guard sale.from != nil || sale.until != nil else {
                throw CatalogError("\(name): rules.sale needs from or until")
            }
            if let from = sale.from, let until = sale.until, from >= until {
                throw CatalogError("\(name): rules.sale.from must be before rules.sale.until")
            }
        }
        if let limit = rules.dailyLimit, !(1...10_000).contains(limit) {
            throw CatalogError("\(name): rules.daily_limit must be 1...10000, got \(limit)")
        }
        if let first = rules.firstPurchase {
            guard first.bonus != nil || first.appleProductID != nil else {
                throw CatalogError("\(name): rules.first_purchase needs bonus or apple_product_id")
            }
            if first.appleProductID?.isEmpty == true {
                throw CatalogError("\(name): rules.first_purchase.apple_product_id is empty")
            }
            if let bonus = first.bonus {
                try check(bonus, "rules.first_purchase.bonus", name)
                // One purchase is one ledger entry: the bonus is more of the same currency.
                guard let grant = product.grant, grant.currency == bonus.currency else {
                    throw CatalogError(
                        "\(name): rules.first_purchase.bonus must be in the currency of the product's grant")
                }
                guard grant.amount + bonus.amount <= Grant.maximumAmount else {
                    throw CatalogError("\(name): grant plus first-purchase bonus exceeds \(Grant.maximumAmount)")
                }
            }
        }
    }

    private static func check(_ grant: Grant, _ field: String, _ name: String) throws(CatalogError) {
        guard !grant.currency.isEmpty else { throw CatalogError("\(name): \(field).currency is empty") }
        guard grant.amount > 0, grant.amount <= Grant.maximumAmount else {
            throw CatalogError("\(name): \(field).amount must be 1...\(Grant.maximumAmount), got \(grant.amount)")
        }
    }

    /// An Apple id shared by several products (a price tier) needs exactly one
    /// `tier_default`, so that a purchase whose order was lost still credits something.
    private func validateTiers(source: String) throws(CatalogError) {
        var sharing: [String: [Product]] = [:]
        for product in products {
            for storeID in Set(product.storeProductIDs) { sharing[storeID, default: []].append(product) }
        }
        for (storeID, shared) in sharing.sorted(by: { $0.key < $1.key }) where shared.count > 1 {
            let defaults = shared.filter(\.isTierDefault)
            guard defaults.count == 1 else {
                throw CatalogError(
                    "\(source): store product id \(storeID) is shared by "
                        + shared.map(\.productID).joined(separator: ", ")
                        + ": mark exactly one of them \"tier_default\": true (it has \(defaults.count))")
            }
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context):
            return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

/// A catalog that cannot be used, with the reason.
public struct CatalogError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
