/// One product the game sells, and what a purchase of it grants.
///
/// `product_id` is the catalog's own id (what an order names). Apple's product id is
/// `apple_product_id`, the same as `product_id` when omitted: one Apple id per product.
/// Games that sell many products through a few Apple price tiers give several products
/// the same `apple_product_id`; the order then says which product was meant, and
/// `tier_default` names the one a purchase without an order credits. Google Play's product
/// id is `google_product_id`, the same as `product_id` when omitted.
public struct Product: Codable, Hashable, Sendable {
    public var productID: String
    /// What the player pays, by ISO 4217 currency, in the currency's minor units (`{"CNY": 600}`
    /// is ¥6.00): what a store that reports an amount without signing a price list
    /// (Xiaomi's `payFee`) is checked against.
    public var prices: [String: Int64]?
    /// The kind as written in the file; see ``kind``.
    public var rawType: String
    /// Apple's product id, when it differs from ``productID``.
    public var rawAppleProductID: String?
    /// Google Play's product id, when it differs from ``productID``.
    public var rawGoogleProductID: String?
    /// An amount of a currency, for consumables such as coins.
    public var grant: Grant?
    /// The name of an entitlement, for subscriptions and unlocks.
    public var entitlement: String?
    /// Credited for a purchase of a shared Apple id that no order explains.
    public var tierDefault: Bool?
    public var rules: PurchaseRules?

    public enum Kind: String, Sendable, CaseIterable {
        case consumable
        case nonConsumable = "non_consumable"
        case autoRenewable = "auto_renewable"
        case nonRenewing = "non_renewing"
    }

    public var kind: Kind? { Kind(rawValue: rawType) }

    /// The Apple product id a purchase at the regular price carries.
    public var appleProductID: String { rawAppleProductID ?? productID }

    /// Every Apple product id that pays for this product: the regular one and the
    /// first-purchase price's, if any.
    public var appleProductIDs: [String] {
        [appleProductID] + (rules?.firstPurchase?.appleProductID.map { [$0] } ?? [])
    }

    /// The Google Play product id a purchase of this product carries.
    public var googleProductID: String { rawGoogleProductID ?? productID }

    /// Every store product id that pays for this product: Apple's and Google's.
    public var storeProductIDs: [String] {
        var ids = appleProductIDs
        if !ids.contains(googleProductID) { ids.append(googleProductID) }
        return ids
    }

    public var isTierDefault: Bool { tierDefault ?? false }

    public init(
        productID: String, kind: Kind, appleProductID: String? = nil, googleProductID: String? = nil,
        grant: Grant? = nil, entitlement: String? = nil, tierDefault: Bool? = nil, rules: PurchaseRules? = nil,
        prices: [String: Int64]? = nil
    ) {
        self.productID = productID
        self.rawType = kind.rawValue
        self.rawAppleProductID = appleProductID
        self.rawGoogleProductID = googleProductID
        self.grant = grant
        self.entitlement = entitlement
        self.tierDefault = tierDefault
        self.rules = rules
        self.prices = prices
    }

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case rawType = "type"
        case rawAppleProductID = "apple_product_id"
        case rawGoogleProductID = "google_product_id"
        case grant, entitlement
        case tierDefault = "tier_default"
        case rules, prices
    }

    /// The price in `currency`'s minor units, when the catalog says.
    public func price(in currency: String) -> Int64? { prices?[currency] }
}

/// An amount of an in-game currency.
public struct Grant: Codable, Hashable, Sendable {
    /// Larger grants are almost certainly a typo in the catalog.
    public static let maximumAmount = 1_000_000_000

    public var currency: String
    public var amount: Int

    public init(currency: String, amount: Int) {
        self.currency = currency
        self.amount = amount
    }
}
