import Foundation
import GooglePlay
import Hummingbird

extension StubGooglePlay {
    static let applications = "/google/androidpublisher/v3/applications/:package/purchases"

    /// Adds Google's routes, under `/google` (so a client's API URL is `http://host:port/google`):
    ///
    /// - `POST /google/oauth2/token`: an RS256 assertion of the stub's service account for an
    ///   access token
    /// - `GET .../applications/{package}/purchases/productsv2/tokens/{token}`
    /// - `GET .../applications/{package}/purchases/subscriptionsv2/tokens/{token}`
    /// - `POST .../purchases/products/{product}/tokens/{token}:acknowledge` and `:consume`
    /// - `POST .../purchases/subscriptions/{subscription}/tokens/{token}:acknowledge`
    /// - `GET .../applications/{package}/purchases/voidedpurchases?startTime=&endTime=&token=`
    ///   (`&includeQuantityBasedPartialRefund=true` lists partial refunds too)
    /// - `GET .../applications/{package}/orders/{order}`: what the buyer paid (``order(_:)``)
    /// - `POST .../applications/{package}/orders/{order}:reviewrefund`: an answer to a pending
    ///   refund review the stub opened (``openRefundReview(order:)``)
    ///
    /// Each API call is checked as Google does: the access token (`401 UNAUTHENTICATED`),
    /// then the configured failures (`503`, then `429` with `Retry-After`), then the answer.
    public func registerRoutes(on router: Router<BasicRequestContext>) {
        router.post(RouterPath(Self.tokenPath)) { request, _ in
            var request = request
            let body = String(buffer: try await request.collectBody(upTo: 64 * 1024))
            let audience = "http://" + (request.head.authority ?? "") + Self.tokenPath
            let (status, answer) = self.exchange(form: Self.form(body), audience: audience)
            return Self.json(answer, status: status)
        }
        router.get(RouterPath(Self.applications + "/productsv2/tokens/:token")) { request, context in
            try await self.gate(request, "productsv2.get") {
                guard let purchase = self.product(token: context.parameters.get("token") ?? "") else {
                    return Self.error(404, "NOT_FOUND", "The purchase token was not found.")
                }
                return Self.encoded(purchase)
            }
        }
        router.get(RouterPath(Self.applications + "/subscriptionsv2/tokens/:token")) { request, context in
            try await self.gate(request, "subscriptionsv2.get") {
                let token = context.parameters.get("token") ?? ""
                guard let subscription = self.state.withLock({ $0.subscriptions[token] }) else {
                    return Self.error(404, "NOT_FOUND", "The purchase token was not found.")
                }
                return Self.encoded(subscription)
            }
        }
        for kind in ["products", "subscriptions"] {
            router.post(RouterPath(Self.applications + "/\(kind)/:product/tokens/:action")) { request, context in
                try await self.gate(
                    request, "\(kind).action",
                    by: { account in
                        self.act(
                            on: context.parameters.get("action") ?? "",
                            product: context.parameters.get("product") ?? "", subscription: kind == "subscriptions",
                            by: account)
                    })
            }
        }
        router.get(RouterPath(Self.applications + "/voidedpurchases")) { request, _ in
            try await self.gate(request, "voidedpurchases.list") { self.voidedPage(request.uri.queryParameters) }
        }
        registerOrderRoutes(on: router)
        registerRefundReviewRoutes(on: router)
        registerAdminRoutes(on: router)
        registerPushRoutes(on: router)
    }

    /// Authentication, the configured failures and latency, then `answer`.
    func gate(_ request: Request, _ call: String, _ answer: () -> Response) async throws -> Response {
        try await gate(request, call, by: { _ in answer() })
    }

    /// The same, `answer` told the service account that called.
    func gate(_ request: Request, _ call: String, by answer: (_ account: String) -> Response) async throws
        -> Response
    {
        guard let account = admits(request.headers[.authorization]) else {
            return Self.error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        }
        let settings = configuration.withLock { $0 }
        let fate = state.withLock { state -> Int in
            state.apiCalls += 1
            state.stats.calls[call, default: 0] += 1
            if state.apiCalls <= settings.failFirst { return 503 }
            if state.apiCalls <= settings.failFirst + settings.rateLimitFirst { return 429 }
            return 200
        }
        if settings.latency > .zero { try await Task.sleep(for: settings.latency) }
        switch fate {
        case 503: return Self.error(503, "UNAVAILABLE", "The service is currently unavailable.")
        case 429:
            var response = Self.error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Queries'.")
            response.headers[.retryAfter] = String(settings.retryAfterSeconds)
            return response
        default: return answer(account)
        }
    }

    /// `{token}:acknowledge` or `{token}:consume`.
    private func act(on action: String, product: String, subscription: Bool, by account: String) -> Response {
        guard let colon = action.lastIndex(of: ":") else {
            return Self.error(404, "NOT_FOUND", "Unknown method.")
        }
        let token = String(action[..<colon])
        let verb = String(action[action.index(after: colon)...])
        guard verb == "acknowledge" || (verb == "consume" && !subscription) else {
            return Self.error(404, "NOT_FOUND", "Unknown method \(verb).")
        }
        let failFirst = configuration.withLock { $0.acknowledgeFailFirst }
        return state.withLock { state -> Response in
            state.acknowledgeCalls += 1
            if state.acknowledgeCalls <= failFirst {
                return Self.error(503, "UNAVAILABLE", "The service is currently unavailable.")
            }
            if subscription {
                guard var found = state.subscriptions[token],
                    found.lineItems.contains(where: { $0.productId == product })
                else { return Self.error(404, "NOT_FOUND", "The purchase token was not found.") }
                found.acknowledgementState = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
                state.subscriptions[token] = found
                state.stats.acknowledged.append(token)
                state.stats.confirmedBy[token] = account
                return Self.encoded([String: String]())
            }
            guard var found = state.products[token], found.productLineItem.contains(where: { $0.productId == product })
            else { return Self.error(404, "NOT_FOUND", "The purchase token was not found.") }
            if verb == "consume", found.productLineItem.contains(where: { $0.isConsumed }) {
                // As Google: a purchase is consumed once.
                return Self.error(
                    400, "FAILED_PRECONDITION", "The purchase is not in a valid state to perform the desired operation."
                )
            }
            found.acknowledgementState = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
            if verb == "consume" {
                for index in found.productLineItem.indices {
                    var offer = found.productLineItem[index].productOfferDetails ?? .init()
                    offer.consumptionState = "CONSUMPTION_STATE_CONSUMED"
                    found.productLineItem[index].productOfferDetails = offer
                }
                state.stats.consumed.append(token)
            } else {
                state.stats.acknowledged.append(token)
            }
            state.products[token] = found
            state.stats.confirmedBy[token] = account
            return Self.encoded([String: String]())
        }
    }

    private func voidedPage(_ query: Parameters) -> Response {
        guard let start = query["startTime"].flatMap({ Int64($0) }), let end = query["endTime"].flatMap({ Int64($0) }),
            start < end
        else { return Self.error(400, "INVALID_ARGUMENT", "startTime and endTime are required, start before end.") }
        // A page token is the stub's own offset; a negative one, or a page size out of
        // 1-1000, would trap in the slicing below: refused as Google refuses a bad argument.
        guard let offset = query["token"].map({ Int($0) }) ?? 0, offset >= 0 else {
            return Self.error(400, "INVALID_ARGUMENT", "token must be a page token the API answered.")
        }
        guard let size = query["maxResults"].map({ Int($0) }) ?? 1000, (1...1000).contains(size) else {
            return Self.error(400, "INVALID_ARGUMENT", "maxResults must be a whole number from 1 to 1000.")
        }
        // As Google: partial refunds only to a reader that asks for them.
        let partials = query["includeQuantityBasedPartialRefund"] == "true"
        let matching = state.withLock { $0.voided }.filter { voided in
            let at = voided.voidedTimeMillis.flatMap { Int64($0) } ?? 0
            return at >= start && at < end && (partials || !voided.isPartial)
        }
        let page = Array(matching.dropFirst(offset).prefix(size))
        let next = offset + page.count < matching.count ? String(offset + page.count) : nil
        return Self.encoded(VoidedPurchasesPage(voidedPurchases: page, nextPageToken: next))
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

    static func encoded(_ value: some Encodable, status: Int = 200) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return bytes((try? encoder.encode(value)) ?? Data("{}".utf8), status: status)
    }

    static func json(_ object: [String: Any], status: Int) -> Response {
        bytes((try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data(), status: status)
    }

    static func error(_ code: Int, _ status: String, _ message: String) -> Response {
        json(["error": ["code": code, "message": message, "status": status]], status: code)
    }

    private static func bytes(_ data: Data, status: Int) -> Response {
        Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json; charset=UTF-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
