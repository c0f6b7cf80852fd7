import Foundation

/// Huawei's `InAppPurchaseData`: what the Order service's `purchaseTokenData` and the
/// Subscription service's `inappPurchaseData` hold, as a JSON string Huawei signs. Only the
/// members the pipeline reads; numbers may come as numbers or strings.
/// https://developer.huawei.com/consumer/en/doc/HMSCore-References/server-data-model-0000001050986133
public struct HuaweiPurchaseData: Decodable, Sendable, Hashable {
    public var orderId: String?
    public var productId: String?
    public var purchaseToken: String?
    /// 0 consumable, 1 non-consumable, 2 subscription.
    public var kind: Int?
    /// -1 initialized, 0 purchased, 1 cancelled, 2 refunded, 3 pending.
    public var purchaseState: Int?
    /// Milliseconds since 1970.
    public var purchaseTime: Int64?
    /// 0 for a sandbox purchase, 1 for a promotion; absent for a real one.
    public var purchaseType: Int?
    /// 0 not consumed, 1 consumed.
    public var consumptionState: Int?
    public var subscriptionId: String?
    /// A subscription's end, milliseconds since 1970.
    public var expirationDate: Int64?
    /// When a subscription was cancelled (refunded, revoked), milliseconds since 1970.
    public var cancelTime: Int64?
    public var subIsvalid: Bool?
    /// What the player paid: "the actual price of a product multiplied by 100" (501 is 5.01),
    /// in `currency` (ISO 4217), for the user's service area `country` (ISO 3166).
    public var price: Int64?
    public var currency: String?
    public var country: String?

    public static let purchased = 0
    public static let cancelled = 1
    public static let refunded = 2
    public static let pending = 3

    enum CodingKeys: String, CodingKey {
        case orderId, productId, purchaseToken, kind, purchaseState, purchaseTime, purchaseType, consumptionState
        case subscriptionId, expirationDate, cancelTime, subIsvalid, price, currency, country
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        orderId = c.lenientString(.orderId)
        productId = c.lenientString(.productId)
        purchaseToken = c.lenientString(.purchaseToken)
        subscriptionId = c.lenientString(.subscriptionId)
        kind = c.lenientInt(.kind).map(Int.init)
        purchaseState = c.lenientInt(.purchaseState).map(Int.init)
        purchaseTime = c.lenientInt(.purchaseTime)
        purchaseType = c.lenientInt(.purchaseType).map(Int.init)
        consumptionState = c.lenientInt(.consumptionState).map(Int.init)
        expirationDate = c.lenientInt(.expirationDate)
        cancelTime = c.lenientInt(.cancelTime)
        subIsvalid = try? c.decodeIfPresent(Bool.self, forKey: .subIsvalid)
        price = c.lenientInt(.price)
        currency = c.lenientString(.currency)
        country = c.lenientString(.country)
    }

    /// The signed JSON text read, or nil when it is not an object.
    public init?(json: String) {
        guard let value = try? JSONDecoder().decode(Self.self, from: Data(json.utf8)) else { return nil }
        self = value
    }

    public var isSandbox: Bool { purchaseType == 0 }

    /// Whether Huawei says the purchase was refunded or cancelled.
    public var isCancelled: Bool { purchaseState == Self.refunded || purchaseState == Self.cancelled }

    /// ``price`` in millionths of the currency's major unit (a hundredth is 10,000 micros,
    /// whatever the currency's own minor unit: Huawei's price has two decimals for all).
    public var priceMicros: Int64? {
        guard let price, price >= 0 else { return nil }
        let (micros, overflow) = price.multipliedReportingOverflow(by: 10_000)
        return overflow ? nil : micros
    }

    static func date(_ millis: Int64?) -> Date? {
        millis.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
    }
}

extension KeyedDecodingContainer {
    /// A string member, or a number written as one.
    func lenientString(_ key: Key) -> String? {
        if let text = try? decodeIfPresent(String.self, forKey: key) { return text }
        if let number = try? decodeIfPresent(Int64.self, forKey: key) { return String(number) }
        return nil
    }

    /// A whole-number member, or a string that holds one.
    func lenientInt(_ key: Key) -> Int64? {
        if let number = try? decodeIfPresent(Int64.self, forKey: key) { return number }
        if let text = try? decodeIfPresent(String.self, forKey: key) { return Int64(text) }
        return nil
    }
}
