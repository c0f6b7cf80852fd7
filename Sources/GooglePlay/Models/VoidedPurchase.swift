import Foundation

/// A refunded, charged-back or revoked purchase, as `purchases.voidedpurchases.list` lists it.
public struct VoidedPurchase: Codable, Hashable, Sendable {
    public var kind: String?
    public var purchaseToken: String
    public var orderId: String?
    /// Milliseconds since 1970, as a string: when the purchase was made.
    public var purchaseTimeMillis: String?
    /// When it was voided.
    public var voidedTimeMillis: String?
    /// 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental, 5 fraud, 6 friendly
    /// fraud, 7 chargeback, 8 unacknowledged purchase: each is taken back alike.
    public var voidedReason: Int?
    /// 0 user, 1 developer, 2 Google.
    public var voidedSource: Int?
    /// Set for a quantity-based partial refund (listed only when asked with
    /// `includeQuantityBasedPartialRefund=true`): how many units of the order were refunded.
    /// Absent, the whole order was voided.
    public var voidedQuantity: Int?

    public init(
        purchaseToken: String, orderId: String?, voidedTimeMillis: String?, voidedReason: Int? = nil,
        voidedSource: Int? = nil, voidedQuantity: Int? = nil
    ) {
        self.kind = "androidpublisher#voidedPurchase"
        self.purchaseToken = purchaseToken
        self.orderId = orderId
        self.voidedTimeMillis = voidedTimeMillis
        self.voidedReason = voidedReason
        self.voidedSource = voidedSource
        self.voidedQuantity = voidedQuantity
    }

    /// Some units of a multi-unit purchase, not the whole order.
    public var isPartial: Bool { voidedQuantity.map { $0 > 0 } ?? false }
}

/// One page of voided purchases; `tokenPagination.nextPageToken` asks for the next.
public struct VoidedPurchasesPage: Codable, Hashable, Sendable {
    public struct Pagination: Codable, Hashable, Sendable {
        public var nextPageToken: String?

        public init(nextPageToken: String?) { self.nextPageToken = nextPageToken }
    }

    public var voidedPurchases: [VoidedPurchase]
    public var tokenPagination: Pagination?

    public init(voidedPurchases: [VoidedPurchase], nextPageToken: String?) {
        self.voidedPurchases = voidedPurchases
        self.tokenPagination = nextPageToken.map { Pagination(nextPageToken: $0) }
    }

    enum CodingKeys: String, CodingKey { case voidedPurchases, tokenPagination }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        voidedPurchases = try container.decodeIfPresent([VoidedPurchase].self, forKey: .voidedPurchases) ?? []
        tokenPagination = try container.decodeIfPresent(Pagination.self, forKey: .tokenPagination)
    }
}
