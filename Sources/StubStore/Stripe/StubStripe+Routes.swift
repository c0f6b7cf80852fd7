import Foundation
import Hummingbird

extension StubStripe {
    /// Adds Stripe's routes, under `/stripe` (so a client's API URL is `http://host:port/stripe`):
    ///
    /// - `GET /stripe/v1/checkout/sessions/{id}` (`expand[]=line_items` adds its line items)
    /// - `GET /stripe/v1/checkout/sessions?payment_intent={id}` (`expand[]=data.line_items`)
    /// - `GET /stripe/v1/charges/{id}`
    /// - `GET /stripe/v1/disputes/{id}` (`expand[]=charge` puts the charge in)
    /// - the admin routes of ``registerAdminRoutes(on:)``
    ///
    /// Each API call is checked as Stripe does: the key (`401`), then the configured failures
    /// (`503`, then `429` with `Retry-After`), then the answer (`404` for an unknown id).
    public func registerRoutes(on router: Router<BasicRequestContext>) {
        for (path, call) in [
            ("/stripe/v1/checkout/sessions/:id", "checkout.sessions.retrieve"),
            ("/stripe/v1/charges/:id", "charges.retrieve"), ("/stripe/v1/disputes/:id", "disputes.retrieve"),
        ] {
            router.get(RouterPath(path)) { request, context in
                self.gate(request, call) { account in
                    let id = context.parameters.get("id") ?? ""
                    guard let object = self.object(id, expand: Self.expansions(request), account: account) else {
                        return Self.error(404, "resource_missing", "No such object: '\(id)'")
                    }
                    return Self.json(object)
                }
            }
        }
        router.get("/stripe/v1/checkout/sessions") { request, _ in
            self.gate(request, "checkout.sessions.list") { account in
                let paymentIntent = request.uri.queryParameters["payment_intent"].map(String.init) ?? ""
                let sessions = self.sessions(
                    paymentIntent: paymentIntent, lineItems: Self.expansions(request).contains("data.line_items"),
                    account: account)
                return Self.json([
                    "object": "list", "data": sessions, "has_more": false, "url": "/v1/checkout/sessions",
                ])
            }
        }
        registerAdminRoutes(on: router)
    }

    /// The `expand[]` values of a request, however the brackets were escaped.
    static func expansions(_ request: Request) -> Set<String> {
        Set(
            request.uri.queryParameters.filter { ["expand[]", "expand%5b%5d"].contains($0.key.lowercased()) }
                .map { String($0.value) })
    }

    /// Authentication, then the configured failures, then `answer` in the account the key opens.
    private func gate(_ request: Request, _ call: String, _ answer: (_ account: String) -> Response) -> Response {
        let settings = configuration.withLock { $0 }
        let keys = [settings.apiKey] + settings.otherAccountKeys.sorted()
        guard let account = keys.first(where: { request.headers[.authorization] == "Bearer \($0)" }) else {
            return Self.error(401, nil, "Invalid API Key provided", type: "invalid_request_error")
        }
        let fate = state.withLock { state -> Int in
            state.apiCalls += 1
            state.calls[call, default: 0] += 1
            if state.apiCalls <= settings.failFirst { return 503 }
            if state.apiCalls <= settings.failFirst + settings.rateLimitFirst { return 429 }
            return 200
        }
        switch fate {
        case 503: return Self.error(503, nil, "An error occurred with our connection to Stripe.", type: "api_error")
        case 429:
            var response = Self.error(
                429, "rate_limit", "Request rate limit exceeded.", type: "invalid_request_error")
            response.headers[.retryAfter] = String(settings.retryAfterSeconds)
            return response
        default: return answer(account)
        }
    }

    // MARK: Responses

    static func json(_ object: [String: Any], status: Int = 200) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data("{}".utf8)
        return Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Stripe's error envelope: `{"error": {"type": ..., "code": ..., "message": ..., "param": ...}}`.
    static func error(
        _ status: Int, _ code: String?, _ message: String, type: String = "invalid_request_error", param: String? = nil
    ) -> Response {
        var detail: [String: Any] = ["type": type, "message": message]
        if let code { detail["code"] = code }
        if let param { detail["param"] = param }
        return json(["error": detail], status: status)
    }
}
