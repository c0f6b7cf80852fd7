import Foundation
import Huawei
import Hummingbird

extension StubHuawei {
    /// Adds Huawei's routes, under `/huawei`:
    ///
    /// - `POST /huawei/oauth2/v3/token`: `client_credentials` for an app-level access token
    /// - `POST /huawei/orders/applications/purchases/tokens/verify`: `{purchaseToken, productId}`
    /// - `POST /huawei/orders/applications/v2/purchases/confirm`: `{purchaseToken, productId}`
    /// - `POST /huawei/subscr/sub/applications/v2/purchases/get`: `{subscriptionId, purchaseToken}`
    /// - `POST /stub/huawei/purchases`, `POST /stub/huawei/refunds`: see ``registerAdminRoutes(on:)``
    ///
    /// Each API call is checked as Huawei does: the access token (`401`), then the
    /// configured failures (`503`, `429` with `Retry-After`, `responseCode` `-1`), then the
    /// answer, `200` with a `responseCode` (`8` for a token Huawei does not know).
    public func registerRoutes(on router: Router<BasicRequestContext>) {
        router.post("/huawei/oauth2/v3/token") { request, _ in
            var request = request
            let body = String(buffer: try await request.collectBody(upTo: 64 * 1024))
            let (status, answer) = self.exchange(form: Self.form(body))
            return StubField.json(answer, status: status)
        }
        router.post("/huawei/orders/applications/purchases/tokens/verify") { request, _ in
            try await self.gate(request, "orders.verify") { fields, pss in
                guard let purchase = self.owned(fields, product: "productId", kind: nil) else { return Self.notOwned() }
                return self.signed(purchase, as: "purchaseTokenData", pss: pss)
            }
        }
        router.post("/huawei/orders/applications/v2/purchases/confirm") { request, _ in
            try await self.gate(request, "orders.confirm") { fields, _ in
                self.confirm(fields)
            }
        }
        router.post("/huawei/subscr/sub/applications/v2/purchases/get") { request, _ in
            try await self.gate(request, "subscriptions.get") { fields, pss in
                guard let purchase = self.owned(fields, product: nil, kind: .subscription),
                    purchase.subscriptionID == fields["subscriptionId"] as? String
                else { return Self.notOwned() }
                return self.signed(purchase, as: "inappPurchaseData", pss: pss)
            }
        }
        registerAdminRoutes(on: router)
    }

    /// Authentication, the configured failures, then `answer` with the JSON body and
    /// whether PSS was asked for (`HW-IAP-APPINFO`).
    private func gate(_ request: Request, _ call: String, _ answer: ([String: Any], Bool) -> Response) async throws
        -> Response
    {
        guard admits(request.headers[.authorization]) else {
            return StubField.json(["error": "invalid access token"], status: 401)
        }
        let settings = configuration.withLock { $0 }
        let fate = state.withLock { state -> Int in
            state.apiCalls += 1
            state.stats.calls[call, default: 0] += 1
            if state.apiCalls <= settings.failFirst { return 503 }
            if state.apiCalls <= settings.failFirst + settings.rateLimitFirst { return 429 }
            if state.apiCalls <= settings.failFirst + settings.rateLimitFirst + settings.errorCodeFirst { return -1 }
            return 200
        }
        switch fate {
        case 503: return StubField.json(["error": "service unavailable"], status: 503)
        case 429:
            var response = StubField.json(["error": "flow control"], status: 429)
            response.headers[.retryAfter] = String(settings.retryAfterSeconds)
            return response
        case -1: return StubField.json(["responseCode": "-1", "responseMessage": "system error"], status: 200)
        default: break
        }
        let fields = try await Self.fields(request)
        let appInfo = request.headers.first { $0.name.canonicalName == "hw-iap-appinfo" }?.value ?? ""
        return answer(fields, appInfo.contains("SHA256WithRSA/PSS"))
    }

    private func owned(_ fields: [String: Any], product: String?, kind: HuaweiPurchase.Kind?) -> Purchase? {
        guard let token = fields["purchaseToken"] as? String, let purchase = self.purchase(token: token) else {
            return nil
        }
        if let product, purchase.productID != fields[product] as? String { return nil }
        if let kind, purchase.kind != kind { return nil }
        if kind == nil, purchase.kind == .subscription { return nil }
        return purchase
    }

    private func signed(_ purchase: Purchase, as member: String, pss: Bool) -> Response {
        let data = purchaseData(purchase)
        let forged = configuration.withLock { $0.forgeSignatures }
        return StubField.json(
            [
                "responseCode": "0", member: data, "dataSignature": sign(data, pss: pss, forged: forged),
                "signatureAlgorithm": pss ? "SHA256WithRSA/PSS" : "SHA256WithRSA",
            ], status: 200)
    }

    private func confirm(_ fields: [String: Any]) -> Response {
        state.withLock { state in
            guard let token = fields["purchaseToken"] as? String, var purchase = state.purchases[token],
                purchase.productID == fields["productId"] as? String, purchase.kind != .subscription,
                purchase.purchaseState == 0
            else { return Self.notOwned() }
            if purchase.confirmed {
                return StubField.json(
                    ["responseCode": "9", "responseMessage": "already consumed or confirmed"], status: 200)
            }
            purchase.confirmed = true
            state.purchases[token] = purchase
            state.stats.confirmed.append(token)
            return StubField.json(["responseCode": "0", "responseMessage": "success"], status: 200)
        }
    }

    static func notOwned() -> Response {
        StubField.json(["responseCode": "8", "responseMessage": "the user does not own the product"], status: 200)
    }

    // MARK: - Answers

    static func form(_ body: String) -> [String: String] {
        var values: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    static func fields(_ request: Request) async throws -> [String: Any] {
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        return (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }
}
