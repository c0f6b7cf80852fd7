import Foundation
import Hummingbird
import Xiaomi

extension StubXiaomi: StubStorePart {
    public static let storeID = XiaomiStore.id

    /// The stub's app and its order query.
    public func settings(_ base: StubStoreBase) throws -> [String: String] {
        [
            "IAP_XIAOMI_APP_ID": Self.appID,
            "IAP_XIAOMI_APP_SECRET": Self.appSecret,
            "IAP_XIAOMI_QUERY_URL": base.url + "/xiaomi/api/biz/service/queryOrder.do",
        ]
    }

    /// - `GET /xiaomi/api/biz/service/queryOrder.do?appId&cpOrderId&uid&signature`: checked as
    ///   Xiaomi does (the configured failures first, then `errcode` 1515 another app, 1525 a
    ///   signature that does not hold, 1506 no such order, 1516 another user's), then the order
    ///   with Xiaomi's signature
    /// - `POST /stub/xiaomi/orders`: `{"cp_order_id", "uid", "product_code", "pay_fee",
    ///   "product_count"?, "cp_user_info"?, "order_status"?}` registers a payment, answering `201`
    ///   and the order
    /// - `POST /stub/xiaomi/notices`: `{"cp_order_id", "forged"?}` answers `{"query"}`, the
    ///   notice's signed query string
    public func registerRoutes(on router: Router<BasicRequestContext>) {
        router.get("/xiaomi/api/biz/service/queryOrder.do") { request, _ in
            self.answer(request.uri.queryParameters)
        }
        router.post("/stub/xiaomi/orders") { request, _ in
            try await StubField.checked {
                let fields = try await StubField.body(request)
                let fee = try StubField.integer(fields, "pay_fee", in: 0...Int(Int32.max))
                let count = try StubField.integer(fields, "product_count", in: 1...100_000) ?? 1
                guard let cpOrder = fields["cp_order_id"] as? String, !cpOrder.isEmpty,
                    let uid = fields["uid"] as? String, !uid.isEmpty,
                    let product = fields["product_code"] as? String, !product.isEmpty, let fee
                else {
                    throw StubFieldError(
                        code: "invalid_request",
                        message: #"expected {"cp_order_id", "uid", "product_code", "pay_fee", "product_count"?}"#)
                }
                let order = self.pay(
                    cpOrderID: cpOrder, uid: uid, productCode: product, payFee: Int64(fee), productCount: count,
                    cpUserInfo: fields["cp_user_info"] as? String,
                    status: fields["order_status"] as? String ?? XiaomiOrderInfo.paid)
                return StubField.json(order.parameters, status: 201)
            }
        }
        router.post("/stub/xiaomi/notices") { request, _ in
            try await StubField.checked {
                let fields = try await StubField.body(request)
                guard let cpOrder = fields["cp_order_id"] as? String,
                    let query = self.notice(cpOrderID: cpOrder, forged: fields["forged"] as? Bool ?? false)
                else { throw StubFieldError(code: "not_found", message: "no order registered under cp_order_id") }
                return StubField.json(["query": query], status: 200)
            }
        }
    }

    private func answer(_ query: Parameters) -> Response {
        let settings = configuration.withLock { $0 }
        let calls = state.withLock { state in
            state.queries += 1
            return state.queries
        }
        if calls <= settings.failFirst { return StubField.json(["error": "unavailable"], status: 503) }
        if calls <= settings.failFirst + settings.rateLimitFirst {
            var response = StubField.json(["error": "too many requests"], status: 429)
            response.headers[.retryAfter] = "1"
            return response
        }
        var asked: [String: String] = [:]
        for (name, value) in query { asked[String(name)] = String(value) }
        guard asked["appId"] == Self.appID else { return StubField.json(["errcode": 1515], status: 200) }
        guard let signed = asked["signature"], XiaomiSignature(secret: Self.appSecret).isValid(signed, of: asked) else {
            return StubField.json(["errcode": 1525], status: 200)
        }
        guard let order = order(cpOrderID: asked["cpOrderId"] ?? "") else {
            return StubField.json(["errcode": 1506], status: 200)
        }
        guard order.uid == asked["uid"] else { return StubField.json(["errcode": 1516], status: 200) }
        var parameters = order.parameters
        parameters["productName"] = "商品 \(order.productCode)"
        let secret = settings.forgeSignatures ? Self.forgerSecret : Self.appSecret
        let signature = XiaomiSignature(secret: secret).sign(parameters)
        // Xiaomi answers numbers as numbers and its text URL-encoded; it signs the values as they are.
        var body: [String: Any] = [:]
        for (name, value) in parameters {
            body[name] =
                ["payFee", "productCount"].contains(name)
                ? Int64(value)! as Any : XiaomiClient.encoded(value) as Any
        }
        body["signature"] = signature
        return StubField.json(body, status: 200)
    }
}
