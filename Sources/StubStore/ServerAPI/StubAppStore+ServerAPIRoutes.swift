import AppStore
import Foundation
import Hummingbird

extension StubAppStore {
    /// Where `environment`'s App Store Server API is served: production at the root
    /// (`/inApps/...`), as `https://api.storekit.itunes.apple.com`, and the sandbox under
    /// `/sandbox` (`/sandbox/inApps/...`), as `https://api.storekit-sandbox.itunes.apple.com`.
    /// So a client's base URLs are `http://host:port` and `http://host:port/sandbox`.
    public static func serverAPIPrefix(_ environment: StubReceipt.Environment) -> String {
        environment == .production ? "" : "/sandbox"
    }

    /// Adds the App Store Server API routes of ``serverAPI`` to `router`:
    ///
    /// - `GET {prefix}/inApps/v1/transactions/{transactionId}`: Get Transaction Info
    /// - `GET {prefix}/inApps/v2/history/{transactionId}?revision=`: Get Transaction History
    /// - `GET {prefix}/inApps/v1/subscriptions/{transactionId}`: Get All Subscription Statuses
    /// - `GET {prefix}/inApps/v1/lookup/{orderId}`: Look Up Order ID
    /// - `GET {prefix}/inApps/v2/refund/lookup/{transactionId}?revision=`: Get Refund History
    /// - `PUT {prefix}/inApps/v1/transactions/{originalTransactionId}/appAccountToken`: Set App
    ///   Account Token (kept in ``StubServerAPI/accountTokens``)
    /// - `PUT {prefix}/inApps/v2/transactions/consumption/{transactionId}`: Send Consumption
    ///   Information (kept in ``StubServerAPI/consumptionAnswers``)
    /// - `POST {prefix}/inApps/v1/notifications/history?paginationToken=`: Get Notification
    ///   History, of what ``StubStoreKit/send(_:to:)`` sent
    /// - `POST /stub/transactions`: registers a ``StubServerTransaction``, answering `201` with it
    ///   (`400 invalid_subscription_status` for a `subscription_status` outside Apple's 1-5)
    /// - `GET /stub/server-api/stats`: ``StubServerAPIStats``, with every endpoint's calls per second
    ///
    /// `{prefix}` is empty for production and `/sandbox` for the sandbox
    /// (``serverAPIPrefix(_:)``). Each API request is checked in Apple's order: the bearer JWT
    /// (`401`, with the reason in `X-Stub-Auth-Failure`), the throttle (`429` with
    /// `Retry-After`), then the answer; an id the deployment does not know is `404` `4040010`.
    /// - Parameter router: The router to add to.
    public func addServerAPIRoutes(to router: Router<BasicRequestContext>) {
        let api = serverAPI
        for environment in StubReceipt.Environment.allCases {
            let prefix = Self.serverAPIPrefix(environment)
            router.get(RouterPath(prefix + "/inApps/v1/transactions/:id")) { request, context in
                api.respond(to: request, at: environment, endpoint: "getTransactionInfo") {
                    api.transactionInfo(Self.id(context), at: environment)
                }
            }
            router.get(RouterPath(prefix + "/inApps/v2/history/:id")) { request, context in
                api.respond(to: request, at: environment, endpoint: "getTransactionHistory") {
                    api.transactionHistory(Self.id(context), revision: Self.revision(request), at: environment)
                }
            }
            router.get(RouterPath(prefix + "/inApps/v1/subscriptions/:id")) { request, context in
                api.respond(to: request, at: environment, endpoint: "getAllSubscriptionStatuses") {
                    api.subscriptionStatuses(Self.id(context), at: environment)
                }
            }
            router.get(RouterPath(prefix + "/inApps/v1/lookup/:id")) { request, context in
                api.respond(to: request, at: environment, endpoint: "lookUpOrderID") {
                    api.orderLookup(Self.id(context), at: environment)
                }
            }
            router.post(RouterPath(prefix + "/inApps/v1/notifications/history")) { request, _ in
                var request = request
                let body = try await request.collectBody(upTo: Self.maxBodySize)
                let query = try? JSONDecoder().decode(NotificationHistoryRequest.self, from: Data(buffer: body))
                let token = request.uri.queryParameters.get("paginationToken").map { String($0) }
                return api.respond(to: request, at: environment, endpoint: "getNotificationHistory") {
                    api.notificationHistory(query, paginationToken: token, at: environment)
                }
            }
            router.put(RouterPath(prefix + "/inApps/v2/transactions/consumption/:id")) { request, context in
                var request = request
                let body = try await request.collectBody(upTo: Self.maxBodySize)
                let information = try? JSONDecoder().decode(ConsumptionInformation.self, from: Data(buffer: body))
                return api.respond(to: request, at: environment, endpoint: "sendConsumptionInformation") {
                    api.consumption(Self.id(context), information, at: environment)
                }
            }
            router.put(RouterPath(prefix + "/inApps/v1/transactions/:id/appAccountToken")) { request, context in
                var request = request
                let body = try await request.collectBody(upTo: Self.maxBodySize)
                let fields = try? JSONDecoder().decode([String: String].self, from: Data(buffer: body))
                return api.respond(to: request, at: environment, endpoint: "setAppAccountToken") {
                    api.setAppAccountToken(Self.id(context), fields, at: environment)
                }
            }
            router.get(RouterPath(prefix + "/inApps/v2/refund/lookup/:id")) { request, context in
                api.respond(to: request, at: environment, endpoint: "getRefundHistory") {
                    api.refundHistory(Self.id(context), revision: Self.revision(request), at: environment)
                }
            }
        }
        router.post("/stub/transactions") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: Self.maxBodySize)
            let transaction: StubServerTransaction
            do {
                transaction = try JSONDecoder().decode(StubServerTransaction.self, from: Data(buffer: body))
            } catch {
                return Self.json(
                    StubAdminError(
                        code: "invalid_transaction",
                        message:
                            "expected {\"transaction_id\": \"...\", \"signed_transaction\": \"...\", ...} (\(error))"),
                    status: .badRequest)
            }
            if let status = transaction.subscriptionStatus, !(1...5).contains(status) {
                return Self.json(
                    StubAdminError(
                        code: "invalid_subscription_status",
                        message: "subscription_status must be one of Apple's statuses, 1 to 5"),
                    status: .badRequest)
            }
            api.register(transaction)
            return Self.json(transaction, status: .created)
        }
        router.get("/stub/server-api/stats") { _, _ in
            Self.json(api.stats)
        }
    }

    private static func id(_ context: BasicRequestContext) -> String {
        let raw = context.parameters.get("id") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    private static func revision(_ request: Request) -> String? {
        request.uri.queryParameters.get("revision").map { String($0) }
    }
}

/// The body of an admin endpoint's `400`, in the stub's own error shape.
private struct StubAdminError: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
    }
    var error: Detail

    init(code: String, message: String) {
        self.error = Detail(code: code, message: message)
    }
}

extension StubServerAPI {
    /// Authenticates, throttles, then answers with `answer`; counts the result in ``stats``.
    func respond(
        to request: Request, at environment: StubReceipt.Environment, endpoint: String,
        answer: () -> StubServerAPIAnswer
    ) -> Response {
        let response = response(to: request, at: environment, endpoint: endpoint, answer: answer)
        answered(Int(response.status.code), at: environment)
        return response
    }

    private func response(
        to request: Request, at environment: StubReceipt.Environment, endpoint: String,
        answer: () -> StubServerAPIAnswer
    ) -> Response {
        let overLimit = countRequest(at: environment, endpoint: endpoint)
        if let failure = StubBearerToken.check(
            request.headers[.authorization], configuration: configuration, bundleID: bundleID, now: now())
        {
            // Apple answers a bad token with a bare 401 and a plain-text body.
            var headers: HTTPFields = [.contentType: "text/plain"]
            headers[Self.authFailureHeader] = failure.rawValue
            return Response(
                status: .unauthorized, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: "Unauthenticated\n\nRequest ID: STUB.0.0\n")))
        }
        if takeRateLimit() {
            var response = Self.http(.rateLimitExceeded)
            response.headers[.retryAfter] = String(configuration.retryAfterSeconds)
            return response
        }
        if let nextSecond = overLimit {
            // Apple's own form: the moment to come back, in milliseconds since 1970.
            var response = Self.http(.rateLimitExceeded)
            response.headers[.retryAfter] = String(nextSecond * 1000)
            return response
        }
        return Self.http(answer())
    }

    /// `X-Stub-Auth-Failure`: why a token was refused (the stub's addition; Apple says nothing).
    private static let authFailureHeader = HTTPFields.Element.Name("X-Stub-Auth-Failure")!

    private static func http(_ answer: StubServerAPIAnswer) -> Response {
        switch answer {
        case .ok(let body):
            return StubAppStore.json(body)
        case .accepted:
            return Response(status: .accepted)
        case .error(let status, let code, let message):
            return StubAppStore.json(
                AppStoreServerAPIErrorBodyWire(errorCode: code, errorMessage: message),
                status: HTTPResponse.Status(code: status))
        }
    }
}

/// Apple's error body, encoded here so the stub does not lean on the client's model for it.
private struct AppStoreServerAPIErrorBodyWire: Encodable {
    var errorCode: Int
    var errorMessage: String
}
