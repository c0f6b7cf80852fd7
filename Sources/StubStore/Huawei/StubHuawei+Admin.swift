import Foundation
import Huawei
import Hummingbird

extension StubHuawei {
    /// The stub's own routes, for a stub in another process (`iap-lab stub-store`):
    ///
    /// - `POST /stub/huawei/purchases`: `{"purchase_token", "product_id", "type", "order_id"?,
    ///   "subscription_id"?, "expiry_time"? (ms), "sandbox"?}` registers a purchase, answering `201`
    /// - `POST /stub/huawei/refunds`: `{"purchase_token"}` refunds it
    /// - `GET /stub/huawei/public-key`: `{"public_key"}`, the key `IAP_HUAWEI_PUBLIC_KEY` takes
    /// - `POST /stub/huawei/notifications`: `{"event": "SUBSCRIPTION" | "ORDER", "notification_type",
    ///   "purchase_token"}` answers the body Huawei would push about that purchase, a subscription's
    ///   signed by the stub's key (``subscriptionNotification(type:token:pss:forged:environment:)``)
    ///
    /// Numbers are checked before anything is registered or signed: a `notification_type` is
    /// a whole number from 0 to 2³¹-1 (Huawei's are a Java `int`), an `expiry_time`
    /// (milliseconds since 1970) of the years 1970 to 9999. Anything else, or a body that is
    /// not JSON, is `400 {"error", "code"}` naming the member, and the stub goes on serving.
    func registerAdminRoutes(on router: Router<BasicRequestContext>) {
        router.get("/stub/huawei/public-key") { _, _ in
            StubField.json(["public_key": self.publicKeyBase64], status: 200)
        }
        router.post("/stub/huawei/notifications") { request, _ in
            try await StubField.checked {
                let fields = try await StubField.body(request)
                let type = try StubField.integer(fields, "notification_type", in: 0...Int(Int32.max))
                guard let token = fields["purchase_token"] as? String, !token.isEmpty, let type,
                    let event = fields["event"] as? String, ["SUBSCRIPTION", "ORDER"].contains(event)
                else {
                    return StubField.json(
                        [
                            "error":
                                "expected {\"event\": \"SUBSCRIPTION\" or \"ORDER\", \"notification_type\", \"purchase_token\"}",
                            "code": "invalid_request",
                        ],
                        status: 400)
                }
                let body =
                    event == "ORDER"
                    ? self.orderNotification(type: type, token: token)
                    : self.subscriptionNotification(type: type, token: token)
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
        router.post("/stub/huawei/purchases") { request, _ in
            try await StubField.checked {
                let fields = try await StubField.body(request)
                let expiry = try StubField.integer(fields, "expiry_time", in: 0...Self.latestMillisecond)
                guard let token = fields["purchase_token"] as? String, !token.isEmpty,
                    let product = fields["product_id"] as? String, !product.isEmpty,
                    let kind = (fields["type"] as? String).flatMap(HuaweiPurchase.Kind.init(rawValue:))
                else {
                    return StubField.json(
                        [
                            "error":
                                "expected {\"purchase_token\", \"product_id\", \"type\", \"order_id\", \"subscription_id\", \"expiry_time\", \"sandbox\"}",
                            "code": "invalid_request",
                        ],
                        status: 400)
                }
                var purchase = Purchase(
                    token: token, productID: product, kind: kind, orderID: fields["order_id"] as? String,
                    subscriptionID: fields["subscription_id"] as? String, purchaseTime: self.now(),
                    sandbox: fields["sandbox"] as? Bool ?? false)
                if let expiry {
                    purchase.expirationDate = Date(timeIntervalSince1970: Double(expiry) / 1000)
                }
                self.register(purchase)
                return StubField.json(["purchase_data": self.purchaseData(purchase)], status: 201)
            }
        }
        router.post("/stub/huawei/refunds") { request, _ in
            try await StubField.checked {
                let fields = try await StubField.body(request)
                guard let token = fields["purchase_token"] as? String, self.refund(token: token, at: self.now()) else {
                    return StubField.json(["error": "no purchase with that purchase_token"], status: 404)
                }
                return StubField.json(["purchase_token": token], status: 200)
            }
        }
    }

    /// The last millisecond of the year 9999: an `expiry_time` in milliseconds stays far
    /// from `Int64`'s end when the stub writes it again.
    static let latestMillisecond = StubField.latestSecond * 1000 + 999

    // MARK: - Notifications

    /// The body of a version 2 subscription notification of Huawei's `notificationType`
    /// about the subscription under `token`, signed by the stub's key (`forged`: by another).
    public func subscriptionNotification(
        type: Int, token: String, pss: Bool = true, forged: Bool = false, environment: String = "PROD"
    ) -> Data {
        let purchase = self.purchase(token: token)
        var status: [String: Any] = [
            "environment": environment, "notificationType": type, "subscriptionId": purchase?.subscriptionID ?? "",
            "purchaseToken": token, "productId": purchase?.productID ?? "", "applicationId": Self.clientID,
        ]
        if let order = purchase?.orderID { status["orderId"] = order }
        if type == 1, let cancelled = purchase?.cancelTime { status["cancellationDate"] = Self.millis(cancelled) }
        let signed = String(
            decoding: (try? JSONSerialization.data(withJSONObject: status, options: .sortedKeys)) ?? Data(),
            as: UTF8.self)
        return Self.body([
            "version": "v2", "eventType": "SUBSCRIPTION", "notifyTime": Self.millis(now()),
            "applicationId": Self.clientID,
            "subNotification": [
                "version": "v2", "statusUpdateNotification": signed,
                "notificationSignature": sign(signed, pss: pss, forged: forged),
                "signatureAlgorithm": pss ? "SHA256WithRSA/PSS" : "SHA256WithRSA",
            ],
        ])
    }

    /// The body of a version 2 order notification (1 payment, 2 refund) about `token`.
    public func orderNotification(type: Int, token: String) -> Data {
        Self.body([
            "version": "v2", "eventType": "ORDER", "notifyTime": Self.millis(now()), "applicationId": Self.clientID,
            "orderNotification": [
                "version": "v2", "notificationType": type, "purchaseToken": token,
                "productId": purchase(token: token)?.productID ?? "",
            ],
        ])
    }

    static func body(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data()
    }

    static func millis(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }
}
