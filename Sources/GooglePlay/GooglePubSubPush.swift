import Foundation
import PipelineCore

/// The body of a Cloud Pub/Sub push that carries a real-time developer notification:
/// `{"message": {"data": <base64 DeveloperNotification>, "messageId", ...}, "subscription"}`.
///
/// Pub/Sub also spells the id `message_id`; both are read. The data must name its app and
/// hold exactly one kind of notification, with what that kind needs (a purchase token, a
/// voided purchase's order id, a pending refund review's order id and token); anything else
/// is refused with the member at fault.
public enum GooglePubSubPush {
    /// Why a push body was refused: `field` is the member at fault, as JSON paths name it.
    public struct Problem: Error, Hashable, Sendable {
        public var field: String
        public var message: String
    }

    public static func notice(from body: some Collection<UInt8>) throws(Problem) -> GoogleNotice {
        guard let envelope = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw Problem(field: "", message: "the body is not a JSON object")
        }
        guard let message = envelope["message"] as? [String: Any] else {
            throw Problem(field: "message", message: "message is required, an object")
        }
        // What Pub/Sub sends beside the notice is not read, but it must be what Pub/Sub sends.
        for (name, value, isRight) in [
            ("subscription", envelope["subscription"], { $0 is String }),
            ("message.publishTime", message["publishTime"], { $0 is String }),
            ("message.message_id", message["message_id"], { $0 is String }),
            ("message.attributes", message["attributes"], { $0 is [String: Any] }),
        ] as [(String, Any?, (Any) -> Bool)] {
            if let value, !isRight(value) {
                throw Problem(
                    field: name, message: "\(name) is not what Pub/Sub sends (a string; attributes: an object)")
            }
        }
        guard let id = (message["messageId"] ?? message["message_id"]) as? String, (1...128).contains(id.count),
            isPlain(id)
        else {
            throw Problem(
                field: "message.messageId", message: "messageId is required, 1 to 128 characters, no control character")
        }
        guard let data = message["data"] as? String, let bytes = Data(base64Encoded: data),
            let notification = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any]
        else {
            throw Problem(field: "message.data", message: "data is required: a base64 JSON DeveloperNotification")
        }
        return try notice(notification, messageID: id)
    }

    static func notice(_ object: [String: Any], messageID: String) throws(Problem) -> GoogleNotice {
        func field(_ name: String) -> String { "message.data." + name }
        guard let package = object["packageName"] as? String, (1...255).contains(package.count), isPlain(package) else {
            throw Problem(field: field("packageName"), message: "packageName is required, without control characters")
        }
        let millis = integer(object["eventTimeMillis"])
        var notice = GoogleNotice(
            messageID: messageID, packageName: package,
            eventTime: millis.map { Date(timeIntervalSince1970: Double($0) / 1000) }, kind: .test)
        let kinds: [(String, GoogleNotice.Kind)] = [
            ("subscriptionNotification", .subscription), ("oneTimeProductNotification", .oneTimeProduct),
            ("voidedPurchaseNotification", .voidedPurchase), ("testNotification", .test),
            ("pendingRefundReviewNotification", .pendingRefundReview),
        ]
        let present = kinds.filter { object[$0.0] is [String: Any] }
        guard present.count == 1, let (name, kind) = present.first, let inner = object[name] as? [String: Any] else {
            throw Problem(
                field: field("subscriptionNotification"),
                message: "exactly one of subscriptionNotification, oneTimeProductNotification, "
                    + "voidedPurchaseNotification, pendingRefundReviewNotification or testNotification is required")
        }
        notice.kind = kind
        guard kind != .test else { return notice }
        if kind == .pendingRefundReview { return try refundReview(inner, into: notice) }
        guard let token = inner["purchaseToken"] as? String, (1...4096).contains(token.count), isPlain(token) else {
            throw Problem(
                field: field(name + ".purchaseToken"), message: "purchaseToken is required, without control characters")
        }
        notice.purchaseToken = token
        notice.notificationType = integer(inner["notificationType"])
        notice.productID = (inner["subscriptionId"] ?? inner["sku"]) as? String
        if let product = notice.productID, !isPlain(product) {
            throw Problem(field: field(name + ".subscriptionId"), message: "the product id holds a control character")
        }
        switch kind {
        case .subscription, .oneTimeProduct:
            guard notice.notificationType != nil else {
                throw Problem(field: field(name + ".notificationType"), message: "notificationType is required")
            }
        case .voidedPurchase:
            guard let order = inner["orderId"] as? String, !order.isEmpty, isPlain(order) else {
                throw Problem(
                    field: field(name + ".orderId"), message: "orderId is required, without control characters")
            }
            notice.orderID = order
            notice.refundType = integer(inner["refundType"])
        case .test, .pendingRefundReview:
            break
        }
        return notice
    }

    /// A pending refund review names the order and the token our answer carries back; a
    /// purchase token, when Google adds one, is kept.
    private static func refundReview(_ inner: [String: Any], into notice: GoogleNotice) throws(Problem)
        -> GoogleNotice
    {
        var notice = notice
        let name = "message.data.pendingRefundReviewNotification."
        for member in ["orderId", "pendingRefundToken"] {
            guard let value = inner[member] as? String, (1...4096).contains(value.count), isPlain(value) else {
                throw Problem(field: name + member, message: "\(member) is required, without control characters")
            }
        }
        notice.orderID = inner["orderId"] as? String
        notice.pendingRefundToken = inner["pendingRefundToken"] as? String
        if let token = inner["purchaseToken"] as? String, (1...4096).contains(token.count), isPlain(token) {
            notice.purchaseToken = token
        }
        return notice
    }

    /// No control character (`\u0000` truncates a string in the C APIs it reaches).
    private static func isPlain(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    private static func integer(_ value: Any?) -> Int? {
        if let text = value as? String { return Int(text) }
        return value as? Int
    }
}
