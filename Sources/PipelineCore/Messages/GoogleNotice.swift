import Foundation

/// A real-time developer notification Google Play pushed through Cloud Pub/Sub, reduced to
/// what it names. It only says that something changed: the validator reads what from the
/// Developer API (a voided purchase excepted, which is its own news).
///
/// https://developer.android.com/google/play/billing/rtdn-reference
public struct GoogleNotice: WireJSONStored, Hashable, Sendable {
    /// Pub/Sub's id of the message: a message delivered again has the same id.
    public var messageID: String
    public var packageName: String
    public var eventTime: Date?
    public var kind: Kind
    /// The subscription's or one-time product's `notificationType`.
    public var notificationType: Int?
    public var purchaseToken: String?
    /// `subscriptionId` or `sku`: Google's product id.
    public var productID: String?
    /// A voided purchase's order id, or the order a pending refund review is about.
    public var orderID: String?
    /// A voided purchase's `refundType`: 1 full, 2 a part of the quantity.
    public var refundType: Int?
    /// A pending refund review's `pendingRefundToken`: what the answer
    /// (`orders.reviewrefund`) must carry back.
    public var pendingRefundToken: String?

    public enum Kind: String, Codable, Hashable, Sendable {
        case subscription
        case oneTimeProduct = "one_time_product"
        case voidedPurchase = "voided_purchase"
        /// A chargeback Google asks us about (RTDN `pendingRefundReviewNotification`): it moves
        /// no money; Google waits 24 hours for our answer.
        case pendingRefundReview = "pending_refund_review"
        case test
    }

    public init(
        messageID: String, packageName: String, eventTime: Date? = nil, kind: Kind, notificationType: Int? = nil,
        purchaseToken: String? = nil, productID: String? = nil, orderID: String? = nil, refundType: Int? = nil,
        pendingRefundToken: String? = nil
    ) {
        self.messageID = messageID
        self.packageName = packageName
        self.eventTime = eventTime
        self.kind = kind
        self.notificationType = notificationType
        self.purchaseToken = purchaseToken
        self.productID = productID
        self.orderID = orderID
        self.refundType = refundType
        self.pendingRefundToken = pendingRefundToken
    }

    enum CodingKeys: String, CodingKey {
        case messageID = "message_id"
        case packageName = "package_name"
        case eventTime = "event_time"
        case kind
        case notificationType = "notification_type"
        case purchaseToken = "purchase_token"
        case productID = "product_id"
        case orderID = "order_id"
        case refundType = "refund_type"
        case pendingRefundToken = "pending_refund_token"
    }

    /// Google's name of what happened: `SUBSCRIPTION_RENEWED`, `ONE_TIME_PRODUCT_PURCHASED`,
    /// `VOIDED_PURCHASE`, `PENDING_REFUND_REVIEW`, `TEST_NOTIFICATION`; an unknown type keeps its number.
    public var typeName: String {
        switch kind {
        case .test: return "TEST_NOTIFICATION"
        case .voidedPurchase: return "VOIDED_PURCHASE"
        case .pendingRefundReview: return "PENDING_REFUND_REVIEW"
        case .oneTimeProduct:
            let names = [1: "PURCHASED", 2: "CANCELED"]
            return "ONE_TIME_PRODUCT_" + (notificationType.flatMap { names[$0] } ?? "\(notificationType ?? 0)")
        case .subscription:
            let name = notificationType.flatMap { Self.subscriptionTypes[$0] }
            return "SUBSCRIPTION_" + (name ?? "\(notificationType ?? 0)")
        }
    }

    static let subscriptionTypes = [
        1: "RECOVERED", 2: "RENEWED", 3: "CANCELED", 4: "PURCHASED", 5: "ON_HOLD", 6: "IN_GRACE_PERIOD",
        7: "RESTARTED", 8: "PRICE_CHANGE_CONFIRMED", 9: "DEFERRED", 10: "PAUSED", 11: "PAUSE_SCHEDULE_CHANGED",
        12: "REVOKED", 13: "EXPIRED", 19: "PRICE_CHANGE_UPDATED", 20: "PENDING_PURCHASE_CANCELED",
        22: "PRICE_STEP_UP_CONSENT_UPDATED",
    ]
}
