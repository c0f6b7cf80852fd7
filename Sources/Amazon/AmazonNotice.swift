import Foundation
import PipelineCore
import StorePlugins

/// A Real-Time Notification (RTN) Amazon pushed through SNS, as the intake accepted it: what
/// happened (`notificationType`), to which receipt of which user, in which app. Kept as
/// canonical JSON in ``StoreEvidence/payload`` (kind `notification`); the validator reads the
/// receipt back from RVS before anything moves.
/// https://developer.amazon.com/docs/in-app-purchasing/real-time-notifications.html
public struct AmazonNotice: Sendable, Hashable {
    public var packageName: String
    /// `CONSUMABLE_PURCHASED`, `ENTITLEMENT_CANCELLED`, `SUBSCRIPTION_RENEWED`, …
    public var type: String
    public var userID: String
    public var receiptID: String
    /// SNS's id for the message: Amazon sends it again until it is answered `2xx`.
    public var messageID: String
    /// When Amazon says it happened (`timestamp`, milliseconds).
    public var timestamp: Date?
    /// The receipt a `SUBSCRIPTION_MODIFIED_IMMEDIATE` cancelled (`relatedReceipts.cancelledReceiptId`).
    public var cancelledReceiptID: String?

    public init(
        packageName: String, type: String, userID: String, receiptID: String, messageID: String,
        timestamp: Date? = nil, cancelledReceiptID: String? = nil
    ) {
        self.packageName = packageName
        self.type = type
        self.userID = userID
        self.receiptID = receiptID
        self.messageID = messageID
        self.timestamp = timestamp
        self.cancelledReceiptID = cancelledReceiptID
    }

    /// The RTN that SNS's `Message` holds, under SNS's `messageID`.
    /// - Throws: ``StoreInputError`` 400 naming the member at fault.
    init(message: String, messageID: String) throws(StoreInputError) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(message.utf8))) as? [String: Any] else {
            throw .invalid("invalid_field", "Message must be Amazon's notification (a JSON object)", member: "Message")
        }
        let path = "Message"
        let package = try StoreInput.string(object, "appPackageName", in: path, maxLength: 255)!
        let type = try StoreInput.string(object, "notificationType", in: path, maxLength: 64)!
        let user = try StoreInput.string(object, "appUserId", in: path, maxLength: 128)!
        let receipt = try StoreInput.string(object, "receiptId", in: path, maxLength: 200)!
        let related = object["relatedReceipts"] as? [String: Any] ?? [:]
        let cancelled = try StoreInput.string(
            related, "cancelledReceiptId", in: "Message.relatedReceipts", required: false, maxLength: 200)
        let millis = (object["timestamp"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue / 1000) }
        self.init(
            packageName: package, type: type, userID: user, receiptID: receipt, messageID: messageID,
            timestamp: millis, cancelledReceiptID: cancelled)
    }

    /// The canonical JSON kept as the evidence's payload.
    public var payload: String {
        var members = [
            "package_name": packageName, "type": type, "user_id": userID, "receipt_id": receiptID,
            "message_id": messageID,
        ]
        members["timestamp"] = timestamp.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) }
        members["cancelled_receipt_id"] = cancelledReceiptID
        return StoreInput.canonicalJSON(members)
    }

    /// The notice a payload written by ``payload`` holds; nil for anything else.
    public init?(payload: String) {
        guard let m = StoreInput.members(payload), let package = m["package_name"], let type = m["type"],
            let user = m["user_id"], let receipt = m["receipt_id"], let message = m["message_id"]
        else { return nil }
        self.init(
            packageName: package, type: type, userID: user, receiptID: receipt, messageID: message,
            timestamp: m["timestamp"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) },
            cancelledReceiptID: m["cancelled_receipt_id"])
    }

    /// Whether it announces a cancellation (a refund of a consumable or an entitlement, or a
    /// subscription's end).
    var announcesCancellation: Bool { type.hasSuffix("_CANCELLED") || type == "SUBSCRIPTION_EXPIRED" }
}
