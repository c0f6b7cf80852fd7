/// One Apple product id and what a purchase of it grants.
public struct Product: Codable, Hashable, Sendable {
    public var productID: String
    /// The kind as written in the file; see ``kind``.
    public var rawType: String
    /// An amount of a currency, for consumables such as coins.
    public var grant: Grant?
    /// The name of an entitlement, for subscriptions and unlocks.
    public var entitlement: String?

    public enum Kind: String, Sendable, CaseIterable {
        case consumable
        case nonConsumable = "non_consumable"
        case autoRenewable = "auto_renewable"
        case nonRenewing = "non_renewing"
    }

    public var kind: Kind? { Kind(rawValue: rawType) }

    public init(productID: String, kind: Kind, grant: Grant? = nil, entitlement: String? = nil) {
        self.productID = productID
        self.rawType = kind.rawValue
        self.grant = grant
        self.entitlement = entitlement
    }

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case rawType = "type"
        case grant, entitlement
    }
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
