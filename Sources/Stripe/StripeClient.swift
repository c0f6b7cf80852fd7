import Foundation
import HTTPClient
import PipelineCore
import StorePlugins

/// A client of the parts of [Stripe's API](https://docs.stripe.com/api) the verifier reads:
/// Checkout Sessions (with their line items), charges and disputes; or of any server that
/// speaks them (the stub store).
///
/// Every call carries the API key as a Bearer token and first books its turn in the read
/// budget (``StripeQuota``) that every process calling Stripe shares; a `429` pauses that
/// budget for all of them until its `Retry-After`. Failures are ``StoreCallError``s that say
/// whether to retry.
public final class StripeClient: Sendable {
    public let apiURL: String
    public let quota: StripeQuota
    let budgets: any CallBudgetKeeper
    let now: @Sendable () -> Date
    private let apiKey: String
    private let http: CurlHTTPClient
    private let timeout: Duration

    /// - Parameters:
    ///   - apiKey: The secret or restricted key (`sk_…`, `rk_…`).
    ///   - apiURL: Stripe's API, or the stub's.
    ///   - httpClient: Shared, not owned: its owner shuts it down.
    ///   - budgets: Where the read budget is kept: the pipeline's store, so that every
    ///     process stays under Stripe's limit together.
    public init(
        apiKey: String, apiURL: String = "https://api.stripe.com", httpClient: CurlHTTPClient,
        quota: StripeQuota = .init(), budgets: any CallBudgetKeeper = LocalCallBudgetKeeper(),
        timeout: Duration = .seconds(10), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        var url = apiURL
        while url.hasSuffix("/") { url.removeLast() }
        self.apiURL = url
        self.apiKey = apiKey
        self.http = httpClient
        self.quota = quota
        self.budgets = budgets
        self.timeout = timeout
        self.now = now
    }

    /// `GET /v1/checkout/sessions/{id}?expand[]=line_items`: a session and what it sold.
    public func checkoutSession(_ id: String) async throws(StoreCallError) -> StripeCheckoutSession {
        try await get(
            StripeCheckoutSession.self, "checkout.sessions.retrieve",
            "/v1/checkout/sessions/\(try Self.escape(id))?expand%5B%5D=line_items")
    }

    /// `GET /v1/checkout/sessions?payment_intent={id}&expand[]=data.line_items`: the session
    /// that made a payment (none for a payment Checkout did not take).
    public func checkoutSessions(paymentIntent id: String) async throws(StoreCallError) -> [StripeCheckoutSession] {
        try await get(
            StripeList<StripeCheckoutSession>.self, "checkout.sessions.list",
            "/v1/checkout/sessions?payment_intent=\(try Self.escape(id))&expand%5B%5D=data.line_items"
        ).data
    }

    /// `GET /v1/charges/{id}`.
    public func charge(_ id: String) async throws(StoreCallError) -> StripeCharge {
        try await get(StripeCharge.self, "charges.retrieve", "/v1/charges/\(try Self.escape(id))")
    }

    /// `GET /v1/disputes/{id}?expand[]=charge`: a dispute and the charge it disputes.
    public func dispute(_ id: String) async throws(StoreCallError) -> StripeDispute {
        try await get(
            StripeDispute.self, "disputes.retrieve", "/v1/disputes/\(try Self.escape(id))?expand%5B%5D=charge")
    }

    // MARK: Exchange

    /// An id from outside, escaped whole: Stripe's ids are letters, digits and `_`.
    static func escape(_ id: String) throws(StoreCallError) -> String {
        guard (1...255).contains(id.utf8.count),
            id.utf8.allSatisfy({
                $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        else {
            throw StoreCallError.stripe(.invalidRequest, call: "request", message: "'\(id.prefix(64))' is no Stripe id")
        }
        return id
    }

    private func get<T: Decodable>(_ type: T.Type, _ call: String, _ path: String) async throws(StoreCallError) -> T {
        try await waitForTurn(call)
        let response: HTTPResponse
        do {
            response = try await http.execute(
                HTTPRequest(
                    method: .get, url: apiURL + path, headers: [(name: "Authorization", value: "Bearer \(apiKey)")],
                    timeout: timeout))
        } catch {
            throw StoreCallError.stripe(
                error.isRetryable ? .unavailable : .invalidRequest, call: call, message: error.description)
        }
        guard response.isSuccess else {
            let error = StoreCallError.from(
                status: response.status, body: response.body, retryAfter: response.header("Retry-After"), call: call)
            if error.code == .rateLimited { await pause(for: error.retryAfter ?? .seconds(1)) }
            throw error
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(T.self, from: response.bodyData)
        } catch {
            throw StoreCallError.stripe(
                .malformedResponse, call: call, message: "the answer is not a \(T.self)", status: response.status)
        }
    }
}
