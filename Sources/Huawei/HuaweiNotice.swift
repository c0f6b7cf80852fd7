import Crypto
import Foundation
import PipelineCore
import StorePlugins

/// A server notification Huawei pushed (version 2), as the intake accepted it: what
/// happened, and to which purchase. Kept as canonical JSON in ``StoreEvidence/payload``
/// (kind `notification`); the validator reads the purchase back from Huawei before anything
/// is applied.
///
/// Huawei signs a subscription notification's `statusUpdateNotification` with the app's
/// IAP key; an order notification (`orderNotification`) carries no signature, so it is
/// believed only through that read-back, whose purchase data Huawei does sign.
/// https://developer.huawei.com/consumer/en/doc/HMSCore-References/api-notifications-about-subscription-events-v2-0000001385268541
public struct HuaweiNotice: Sendable, Hashable {
    public enum Event: String, Sendable {
        case order = "ORDER"
        case subscription = "SUBSCRIPTION"
    }

    public var event: Event
    /// Huawei's name of what happened: `PAYMENT_SUCCESS`, `REFUND_SUCCESS` for orders;
    /// `INITIAL_BUY`, `RENEWAL`, `CANCEL`, … for subscriptions (`ORDER_<n>` or
    /// `SUBSCRIPTION_<n>` for a number Huawei has not documented).
    public var typeName: String
    public var purchaseToken: String
    public var productID: String?
    public var subscriptionID: String?
    public var orderID: String?
    /// `PROD` or `Sandbox`, when Huawei says.
    public var environment: String?
    public var notifyTime: Date?
    /// When a subscription was cancelled (`CANCEL`), when Huawei says.
    public var cancellationDate: Date?
    /// The dedupe id: Huawei sends a notification again until it is answered `200`.
    public var messageID: String

    /// Huawei's order notification types.
    static let orderTypes = [1: "PAYMENT_SUCCESS", 2: "REFUND_SUCCESS"]
    /// Huawei's subscription notification types.
    static let subscriptionTypes = [
        0: "INITIAL_BUY", 1: "CANCEL", 2: "RENEWAL", 3: "INTERACTIVE_RENEWAL", 4: "NEW_RENEWAL_PREF",
        5: "RENEWAL_STOPPED", 6: "RENEWAL_RESTORED", 7: "RENEWAL_RECURRING", 9: "ON_HOLD", 10: "PAUSED",
        11: "PAUSE_PLAN_CHANGED", 12: "PRICE_CHANGE_CONFIRMED", 13: "DEFERRED",
    ]

    public init(
        event: Event, typeName: String, purchaseToken: String, productID: String? = nil, subscriptionID: String? = nil,
        orderID: String? = nil, environment: String? = nil, notifyTime: Date? = nil, cancellationDate: Date? = nil,
        messageID: String
    ) {
        self.event = event
        self.typeName = typeName
        self.purchaseToken = purchaseToken
        self.productID = productID
        self.subscriptionID = subscriptionID
        self.orderID = orderID
        self.environment = environment
        self.notifyTime = notifyTime
        self.cancellationDate = cancellationDate
        self.messageID = messageID
    }

    // MARK: Evidence

    /// The canonical JSON kept as the evidence's payload.
    public var payload: String {
        var members = [
            "event": event.rawValue, "type": typeName, "purchase_token": purchaseToken, "message_id": messageID,
        ]
        members["product_id"] = productID
        members["subscription_id"] = subscriptionID
        members["order_id"] = orderID
        members["environment"] = environment
        members["notify_time"] = notifyTime.map { String(Self.millis($0)) }
        members["cancellation_date"] = cancellationDate.map { String(Self.millis($0)) }
        return StoreInput.canonicalJSON(members)
    }

    /// The notice a payload written by ``payload`` holds; nil for anything else.
    public init?(payload: String) {
        guard let m = StoreInput.members(payload), let event = m["event"].flatMap(Event.init(rawValue:)),
            let type = m["type"], let token = m["purchase_token"], let id = m["message_id"]
        else { return nil }
        self.init(
            event: event, typeName: type, purchaseToken: token, productID: m["product_id"],
            subscriptionID: m["subscription_id"], orderID: m["order_id"], environment: m["environment"],
            notifyTime: m["notify_time"].flatMap(Int64.init).flatMap { HuaweiPurchaseData.date($0) },
            cancellationDate: m["cancellation_date"].flatMap(Int64.init).flatMap { HuaweiPurchaseData.date($0) },
            messageID: id)
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// A stable id from what identifies the notification, so Huawei's resends dedupe. The
    /// intake keys it by store (`huawei:<id>`), so it carries no prefix of its own.
    static func messageID(_ content: String) -> String {
        String(SHA256.hash(data: Array(content.utf8)).map { String(format: "%02x", $0) }.joined().prefix(40))
    }
}
