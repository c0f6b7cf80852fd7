import Foundation
import Settlement

/// An order as `POST /v1/orders` and `GET /v1/orders/{id}` show it.
public struct OrderDetails: Codable, Hashable, Sendable {
    public var orderID: String
    public var accountID: String
    public var productID: String
    /// What the app asks Apple for.
    public var appleProductID: String
    /// StoreKit 2: pass to `Product.PurchaseOption.appAccountToken(_:)`.
    public var appAccountToken: String
    public var firstPurchase: Bool
    public var status: OrderStatus
    public var createdAt: Date
    public var expiresAt: Date
    public var closedAt: Date?
    public var closeReason: String?
    public var receiptID: String?
    public var transactionID: String?
    /// The product credited: the one ordered, or Apple's when they differ (`mismatched`).
    public var creditedProductID: String?

    enum CodingKeys: String, CodingKey {
        case orderID = "order_id"
        case accountID = "account_id"
        case productID = "product_id"
        case appleProductID = "apple_product_id"
        case appAccountToken = "app_account_token"
        case firstPurchase = "first_purchase"
        case status
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case closedAt = "closed_at"
        case closeReason = "close_reason"
        case receiptID = "receipt_id"
        case transactionID = "transaction_id"
        case creditedProductID = "credited_product_id"
    }

    package init(_ order: Order, now: Date) {
        orderID = order.id
        accountID = order.accountID
        productID = order.productID
        appleProductID = order.appleProductID
        appAccountToken = order.appAccountToken
        firstPurchase = order.firstPurchase
        status = order.status(at: now)
        createdAt = order.createdAt
        expiresAt = order.expiresAt
        closedAt = order.closedAt ?? (status == .expired ? order.expiresAt : nil)
        closeReason = order.closeReason
        receiptID = order.receiptID
        transactionID = order.transactionID
        creditedProductID = order.creditedProductID
    }
}

/// What became of a `POST /v1/orders`.
public enum OrderOutcome: Hashable, Sendable {
    case created(OrderDetails)
    case unknownProduct
    /// A rule refused it.
    case refused(OrderRefusalReason)
    /// The `app_account_token` the request named belongs to another account.
    case tokenOfAnotherAccount
}

/// A refusal, as the store decided it (the rule's code and message).
public struct OrderRefusalReason: Hashable, Sendable {
    public var code: String
    public var message: String

    package init(code: String, message: String) {
        self.code = code
        self.message = message
    }

}

/// What became of a `POST /v1/orders/{id}/cancel`.
public enum CancelOutcome: Hashable, Sendable {
    case cancelled(OrderDetails)
    case notFound
    /// Paid, cancelled or expired already.
    case notOpen(OrderDetails)
    /// The request named another account than the order's.
    case otherAccount
}

/// One product as `GET /v1/products?account_id=` shows it to an account now.
public struct ProductOffer: Codable, Hashable, Sendable {
    public var productID: String
    public var type: String
    public var appleProductID: String
    public var grant: Offer.Grant?
    public var entitlement: String?
    public var available: Bool
    /// Why it cannot be ordered now (a rule's code), when it cannot.
    public var unavailableReason: String?
    public var firstPurchase: Bool
    public var firstPurchaseBonus: Offer.Grant?
    public var saleFrom: Date?
    public var saleUntil: Date?
    public var dailyLimit: Int?
    public var ordersToday: Int
    public var openOrderID: String?

    package init(
        productID: String, type: String, appleProductID: String, grant: Offer.Grant? = nil, entitlement: String? = nil,
        available: Bool, unavailableReason: String? = nil, firstPurchase: Bool, firstPurchaseBonus: Offer.Grant? = nil,
        saleFrom: Date? = nil, saleUntil: Date? = nil, dailyLimit: Int? = nil, ordersToday: Int,
        openOrderID: String? = nil
    ) {
        self.productID = productID
        self.type = type
        self.appleProductID = appleProductID
        self.grant = grant
        self.entitlement = entitlement
        self.available = available
        self.unavailableReason = unavailableReason
        self.firstPurchase = firstPurchase
        self.firstPurchaseBonus = firstPurchaseBonus
        self.saleFrom = saleFrom
        self.saleUntil = saleUntil
        self.dailyLimit = dailyLimit
        self.ordersToday = ordersToday
        self.openOrderID = openOrderID
    }

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case type
        case appleProductID = "apple_product_id"
        case grant, entitlement, available
        case unavailableReason = "unavailable_reason"
        case firstPurchase = "first_purchase"
        case firstPurchaseBonus = "first_purchase_bonus"
        case saleFrom = "sale_from"
        case saleUntil = "sale_until"
        case dailyLimit = "daily_limit"
        case ordersToday = "orders_today"
        case openOrderID = "open_order_id"
    }
}

/// Namespace for ``ProductOffer``'s nested values.
public enum Offer {
    public struct Grant: Codable, Hashable, Sendable {
        public var currency: String
        public var amount: Int

        package init(currency: String, amount: Int) {
            self.currency = currency
            self.amount = amount
        }

    }
}
