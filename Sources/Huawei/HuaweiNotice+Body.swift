import Foundation
import PipelineCore
import StorePlugins

extension HuaweiNotice {
    /// Reads and authenticates a version 2 notification body.
    ///
    /// ```json
    /// {"version": "v2", "eventType": "SUBSCRIPTION", "notifyTime": 1767225600000, "applicationId": "…",
    ///  "subNotification": {"statusUpdateNotification": "{…}", "notificationSignature": "…",
    ///                      "signatureAlgorithm": "SHA256WithRSA/PSS", "version": "v2"}}
    /// {"version": "v2", "eventType": "ORDER", "notifyTime": …, "applicationId": "…",
    ///  "orderNotification": {"version": "v2", "notificationType": 1, "purchaseToken": "…", "productId": "…"}}
    /// ```
    /// - Throws: ``StoreInputError``: 401 when the subscription notification's signature
    ///   does not hold, 400 naming the member for anything malformed.
    public init(body: [UInt8], key: HuaweiPublicKey) throws(StoreInputError) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw .invalid("invalid_notification", "the body must be a JSON object", member: "body")
        }
        if let version = object["version"], version as? String != "v2" {
            throw .invalid("invalid_notification", "version must be v2", member: "version")
        }
        let notifyTime = Self.number(object["notifyTime"]).flatMap { HuaweiPurchaseData.date($0) }
        switch object["eventType"] as? String {
        case "ORDER":
            try self.init(order: object["orderNotification"], notifyTime: notifyTime)
        case "SUBSCRIPTION":
            try self.init(subscription: object["subNotification"], notifyTime: notifyTime, key: key)
        default:
            throw .invalid("invalid_notification", "eventType must be ORDER or SUBSCRIPTION", member: "eventType")
        }
    }

    private init(order value: Any?, notifyTime: Date?) throws(StoreInputError) {
        guard let order = value as? [String: Any] else {
            throw .invalid("invalid_notification", "orderNotification must be an object", member: "orderNotification")
        }
        guard let type = Self.number(order["notificationType"]) else {
            throw .invalid(
                "invalid_notification", "orderNotification.notificationType must be a number",
                member: "orderNotification.notificationType")
        }
        let token = try StoreInput.string(order, "purchaseToken", in: "orderNotification")!
        let product = try StoreInput.string(order, "productId", in: "orderNotification", maxLength: 256)!
        let name = Self.orderTypes[Int(type)] ?? "ORDER_\(type)"
        self.init(
            event: .order, typeName: name, purchaseToken: token, productID: product, notifyTime: notifyTime,
            messageID: Self.messageID("ORDER|\(type)|\(token)|\(product)"))
    }

    private init(subscription value: Any?, notifyTime: Date?, key: HuaweiPublicKey) throws(StoreInputError) {
        guard let sub = value as? [String: Any] else {
            throw .invalid("invalid_notification", "subNotification must be an object", member: "subNotification")
        }
        guard let signed = sub["statusUpdateNotification"] as? String, !signed.isEmpty else {
            throw .invalid(
                "invalid_notification", "subNotification.statusUpdateNotification must be a JSON string",
                member: "subNotification.statusUpdateNotification")
        }
        guard let signature = sub["notificationSignature"] as? String, !signature.isEmpty else {
            throw .invalid(
                "invalid_notification", "subNotification.notificationSignature must be a string",
                member: "subNotification.notificationSignature")
        }
        let algorithm = sub["signatureAlgorithm"] as? String
        guard key.isValid(signature: signature, of: signed, algorithm: algorithm) else {
            throw .unauthorized("the notification's signature does not hold for the IAP public key")
        }
        let path = "subNotification.statusUpdateNotification"
        guard let status = (try? JSONSerialization.jsonObject(with: Data(signed.utf8))) as? [String: Any] else {
            throw .invalid("invalid_notification", "\(path) must hold a JSON object", member: path)
        }
        guard let type = Self.number(status["notificationType"]) else {
            throw .invalid(
                "invalid_notification", "\(path).notificationType must be a number", member: "\(path).notificationType")
        }
        let subscription = try StoreInput.string(status, "subscriptionId", in: path, maxLength: 256)!
        // v2 names the token `purchaseToken`; earlier notifications named it `latestReceipt`.
        let current = try StoreInput.string(status, "purchaseToken", in: path, required: false)
        let latest = try StoreInput.string(status, "latestReceipt", in: path, required: false)
        guard let token = current ?? latest else {
            throw .invalid("missing_field", "\(path).purchaseToken is required", member: "\(path).purchaseToken")
        }
        self.init(
            event: .subscription, typeName: Self.subscriptionTypes[Int(type)] ?? "SUBSCRIPTION_\(type)",
            purchaseToken: token,
            productID: try StoreInput.string(status, "productId", in: path, required: false, maxLength: 256),
            subscriptionID: subscription,
            orderID: try StoreInput.string(status, "orderId", in: path, required: false, maxLength: 256),
            environment: try StoreInput.string(status, "environment", in: path, required: false, maxLength: 32),
            notifyTime: notifyTime,
            cancellationDate: Self.number(status["cancellationDate"]).flatMap { HuaweiPurchaseData.date($0) },
            messageID: Self.messageID(signed))
    }

    /// A whole number, or a string holding one (Huawei writes both). Not `true` or `false`:
    /// JSONSerialization hands booleans over as NSNumbers too (of type `c`), which read as 1 and 0.
    static func number(_ value: Any?) -> Int64? {
        if let text = value as? String { return Int64(text) }
        if let number = value as? NSNumber, String(cString: number.objCType) != "c",
            Double(number.int64Value) == number.doubleValue
        {
            return number.int64Value
        }
        return nil
    }
}
