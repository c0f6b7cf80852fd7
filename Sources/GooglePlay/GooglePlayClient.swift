import Foundation
import HTTPClient
import PipelineCore
import StorePlugins

/// A client of the Google Play Developer API's purchases
/// ([androidpublisher v3](https://developers.google.com/android-publisher/api-ref/rest)), or of
/// any server that speaks it (the stub store).
///
/// Every call carries an access token of the service account, exchanged once and kept until
/// five minutes before it expires; a `401` drops it and the call is tried once more with a
/// fresh one. Failures are ``StoreCallError``s that say whether to retry (and, for a `429`,
/// when). A purchase read here is the truth: Google's notifications only say that something
/// changed. Every call first books its turn in its quota bucket's budget
/// (``GooglePlayQuota``), shared through `budgets` by every process that calls Google; a
/// `429` pauses the bucket for all of them until its `Retry-After`.
///
/// ```swift
/// let play = try GooglePlayClient(account: GoogleServiceAccount(path: keyFile), httpClient: http)
/// let purchase = try await play.productPurchase(packageName: "com.example.game", token: token)
/// if purchase.isPurchased { ... }
/// ```
public final class GooglePlayClient: Sendable {
    public struct Configuration: Sendable {
        /// Where the API is: Google's, or the stub's.
        public var apiURL: String
        /// The limit on one call.
        public var timeout: Duration

        public init(apiURL: String = "https://androidpublisher.googleapis.com", timeout: Duration = .seconds(10)) {
            self.apiURL = apiURL
            self.timeout = timeout
        }
    }

    public let configuration: Configuration
    public let quota: GooglePlayQuota
    let budgets: any CallBudgetKeeper
    let now: @Sendable () -> Date
    private let tokens: GoogleAccessTokens
    private let http: CurlHTTPClient

    /// - Parameters:
    ///   - account: Whose tokens sign the calls.
    ///   - httpClient: Shared, not owned: its owner shuts it down.
    ///   - budgets: Where the quota buckets' budgets are kept: the pipeline's store, so that
    ///     every process calling Google stays under one quota together.
    ///   - now: The clock, for the assertions, the tokens' expiry and the budgets.
    public init(
        account: GoogleServiceAccount, configuration: Configuration = .init(), httpClient: CurlHTTPClient,
        quota: GooglePlayQuota = .init(), budgets: any CallBudgetKeeper = LocalCallBudgetKeeper(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        var configuration = configuration
        while configuration.apiURL.hasSuffix("/") { configuration.apiURL.removeLast() }
        self.configuration = configuration
        self.quota = quota
        self.budgets = budgets
        self.now = now
        self.http = httpClient
        self.tokens = GoogleAccessTokens(account: account, http: httpClient, now: now)
    }

    /// How many times a token was exchanged so far.
    public var tokenExchanges: Int { get async { await tokens.exchanges } }

    // MARK: One-time products

    /// `purchases.productsv2.getproductpurchasev2`: a one-time product purchase.
    public func productPurchase(packageName: String, token: String) async throws(StoreCallError) -> ProductPurchaseV2 {
        try decode(
            ProductPurchaseV2.self,
            try await send("productsv2.get", .get, try path(packageName, "purchases/productsv2/tokens", token)))
    }

    /// `orders.get`: what the buyer paid for an order (the revenue ledger's price).
    public func order(packageName: String, orderID: String) async throws(StoreCallError) -> GooglePlayOrder {
        try decode(GooglePlayOrder.self, try await send("orders.get", .get, try path(packageName, "orders", orderID)))
    }

    /// `purchases.products.acknowledge`: tells Google the purchase was delivered (else it is
    /// refunded after three days).
    public func acknowledgeProduct(packageName: String, productID: String, token: String) async throws(StoreCallError) {
        let path = try path(packageName, "purchases/products", productID, "tokens", token) + ":acknowledge"
        _ = try await send("products.acknowledge", .post, path, body: "{}")
    }

    /// `purchases.products.consume`: a consumable's delivery, which also acknowledges it and
    /// lets the player buy it again.
    public func consumeProduct(packageName: String, productID: String, token: String) async throws(StoreCallError) {
        let path = try path(packageName, "purchases/products", productID, "tokens", token) + ":consume"
        _ = try await send("products.consume", .post, path)
    }

    // MARK: Subscriptions

    /// `purchases.subscriptionsv2.get`: a subscription's state and line items.
    public func subscriptionPurchase(packageName: String, token: String) async throws(StoreCallError)
        -> SubscriptionPurchaseV2
    {
        try decode(
            SubscriptionPurchaseV2.self,
            try await send(
                "subscriptionsv2.get", .get, try path(packageName, "purchases/subscriptionsv2/tokens", token)))
    }

    /// `purchases.subscriptions.acknowledge`.
    public func acknowledgeSubscription(packageName: String, subscriptionID: String, token: String)
        async throws(StoreCallError)
    {
        let path = try path(packageName, "purchases/subscriptions", subscriptionID, "tokens", token) + ":acknowledge"
        _ = try await send("subscriptions.acknowledge", .post, path, body: "{}")
    }

    // MARK: Refunds and chargebacks

    /// `purchases.voidedpurchases.list`: one page (up to 1,000) of purchases voided in
    /// `start..<end` (Google keeps 30 days), subscriptions included, and the refunds of some
    /// units of a multi-unit purchase (`voidedQuantity`), which Google lists only when asked.
    public func voidedPurchases(packageName: String, start: Date, end: Date, pageToken: String? = nil)
        async throws(StoreCallError) -> VoidedPurchasesPage
    {
        var query = "?startTime=\(Int64(start.timeIntervalSince1970 * 1000))"
        query += "&endTime=\(Int64(end.timeIntervalSince1970 * 1000))&maxResults=1000&type=1"
        query += "&includeQuantityBasedPartialRefund=true"
        if let pageToken { query += "&token=" + Self.escape(pageToken) }
        return try decode(
            VoidedPurchasesPage.self,
            try await send("voidedpurchases.list", .get, try path(packageName, "purchases/voidedpurchases") + query))
    }

    /// `orders.reviewrefund`: our answer to a pending refund review (Google's chargeback
    /// review), which Google waits 24 hours for. Its body is empty on success.
    public func reviewRefund(packageName: String, orderID: String, _ answer: RefundReviewRequest)
        async throws(StoreCallError)
    {
        let path = try path(packageName, "orders", orderID) + ":reviewrefund"
        _ = try await send("orders.reviewrefund", .post, path, body: answer.json)
    }

    // MARK: Exchange

    private func path(_ packageName: String, _ parts: String...) throws(StoreCallError) -> String {
        guard (1...255).contains(packageName.count),
            packageName.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_") })
        else {
            throw StoreCallError.googlePlay(
                .invalidRequest, call: "request", message: "'\(packageName.prefix(64))' is no package name")
        }
        var path = "/androidpublisher/v3/applications/" + packageName
        for (index, part) in parts.enumerated() {
            // Even parts are fixed segments; odd ones are ids from outside, escaped whole.
            guard index % 2 == 0 || (1...4096).contains(part.count) else {
                throw StoreCallError.googlePlay(.invalidRequest, call: "request", message: "an id is empty or too long")
            }
            path += "/" + (index % 2 == 0 ? part : Self.escape(part))
        }
        return path
    }

    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    private func send(_ call: String, _ method: HTTPRequest.Method, _ path: String, body: String? = nil)
        async throws(StoreCallError) -> HTTPResponse
    {
        for attempt in 0..<2 {
            try await waitForTurn(call)
            let token = try await tokens.token()
            var headers = [(name: "Authorization", value: "Bearer \(token.value)")]
            if body != nil { headers.append((name: "Content-Type", value: "application/json")) }
            let response: HTTPResponse
            do {
                response = try await http.execute(
                    HTTPRequest(
                        method: method, url: configuration.apiURL + path, headers: headers,
                        body: body.map { Array($0.utf8) }, timeout: configuration.timeout))
            } catch {
                throw StoreCallError.googlePlay(
                    error.isRetryable ? .unavailable : .invalidRequest, call: call, message: error.description)
            }
            if response.isSuccess { return response }
            // A token Google no longer takes (revoked, clock skew): one fresh exchange.
            if response.status == 401, attempt == 0 {
                await tokens.invalidate(token)
                continue
            }
            let error = StoreCallError.from(
                status: response.status, body: response.body, retryAfter: response.header("Retry-After"), call: call)
            if error.code == .rateLimited { await pause(call, for: error.retryAfter ?? .seconds(1)) }
            throw error
        }
        throw StoreCallError.googlePlay(.unauthorized, call: call, message: "refused a fresh token")
    }

    private func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) throws(StoreCallError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: response.bodyData)
        } catch {
            throw StoreCallError.googlePlay(
                .malformedResponse, call: "\(T.self)", message: "the answer is not a \(T.self)", status: response.status
            )
        }
    }
}
