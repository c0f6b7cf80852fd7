import Foundation
import HTTPClient
import PipelineCore
import StorePlugins

/// A client of Huawei's IAP server APIs, or of any server that speaks them (the stub
/// store): the Order service (verify a purchase token, confirm a consumable's delivery) and
/// the Subscription service (read a subscription).
///
/// Every call carries the app-level access token as `Basic base64("APPAT:" + token)`,
/// fetched once and kept until five minutes before it expires; a `401` drops it and the
/// call is tried once more with a fresh one. Every call to the services first books its turn
/// in the app's call budget (``HuaweiQuota``), shared through `budgets` by every process
/// that calls Huawei; a `429` pauses that budget for all of them until its `Retry-After`.
/// Huawei answers most failures `200` with a `responseCode`; either way a failure is a
/// ``StoreCallError`` that says whether to retry.
///
/// ```swift
/// let huawei = HuaweiClient(settings: settings, httpClient: http)
/// let signed = try await huawei.verifyOrder(productID: "coins_100", purchaseToken: token)
/// let purchase = signed.verified(by: settings.publicKey)   // nil: the signature does not hold
/// ```
public final class HuaweiClient: Sendable {
    public let settings: HuaweiSettings
    /// The limit on one call.
    public let timeout: Duration
    let budgets: any CallBudgetKeeper
    /// Whether its calls read purchases for notifications, booked in their own budget.
    let forNotices: Bool
    let now: @Sendable () -> Date
    let tokens: HuaweiAccessTokens
    let http: CurlHTTPClient

    /// - Parameters:
    ///   - httpClient: Shared, not owned: its owner shuts it down.
    ///   - budgets: Where the call budget is kept: the pipeline's store, so that every
    ///     process stays within `settings.quota` together.
    ///   - now: The clock, for the token's expiry and the budget.
    public convenience init(
        settings: HuaweiSettings, httpClient: CurlHTTPClient, timeout: Duration = .seconds(10),
        budgets: any CallBudgetKeeper = LocalCallBudgetKeeper(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            settings: settings, httpClient: httpClient, timeout: timeout, budgets: budgets, now: now,
            tokens: HuaweiAccessTokens(
                oauthURL: settings.oauthURL, clientID: settings.clientID, clientSecret: settings.clientSecret, now: now)
        )
    }

    init(
        settings: HuaweiSettings, httpClient: CurlHTTPClient, timeout: Duration, budgets: any CallBudgetKeeper,
        now: @escaping @Sendable () -> Date, tokens: HuaweiAccessTokens, forNotices: Bool = false
    ) {
        self.settings = settings
        self.timeout = timeout
        self.budgets = budgets
        self.forNotices = forNotices
        self.now = now
        self.tokens = tokens
        self.http = httpClient
    }

    /// How many access tokens were fetched so far (shared by every client of one ``HuaweiStore``).
    public var tokenFetches: Int { get async { await tokens.fetches } }

    /// Order service `purchases/tokens/verify`: a consumable's or non-consumable's purchase
    /// data, as Huawei signed it.
    public func verifyOrder(productID: String, purchaseToken: String) async throws(StoreCallError)
        -> HuaweiSignedPurchase
    {
        let answer = try await send(
            "orders.verify", settings.orderURL + "/applications/purchases/tokens/verify",
            ["purchaseToken": purchaseToken, "productId": productID])
        guard let data = answer.purchaseTokenData, let signature = answer.dataSignature else {
            throw StoreCallError.huawei(
                .malformedResponse, call: "orders.verify", message: "no purchaseTokenData and dataSignature")
        }
        return HuaweiSignedPurchase(data: data, signature: signature, algorithm: answer.signatureAlgorithm)
    }

    /// Subscription service `purchases/get`: a subscription's latest purchase data, as Huawei signed it.
    public func subscription(subscriptionID: String, purchaseToken: String) async throws(StoreCallError)
        -> HuaweiSignedPurchase
    {
        let answer = try await send(
            "subscriptions.get", settings.subscriptionURL + "/sub/applications/v2/purchases/get",
            ["purchaseToken": purchaseToken, "subscriptionId": subscriptionID])
        guard let data = answer.inappPurchaseData, let signature = answer.dataSignature else {
            throw StoreCallError.huawei(
                .malformedResponse, call: "subscriptions.get", message: "no inappPurchaseData and dataSignature")
        }
        return HuaweiSignedPurchase(data: data, signature: signature, algorithm: answer.signatureAlgorithm)
    }

    /// Order service `purchases/confirm`: tells Huawei a consumable was delivered, so the
    /// player may buy it again.
    public func confirm(productID: String, purchaseToken: String) async throws(StoreCallError) {
        _ = try await send(
            "orders.confirm", settings.orderURL + "/applications/v2/purchases/confirm",
            ["purchaseToken": purchaseToken, "productId": productID])
    }

    // MARK: Exchange

    struct Answer: Decodable {
        var responseCode: String?
        var responseMessage: String?
        var purchaseTokenData: String?
        var inappPurchaseData: String?
        var dataSignature: String?
        var signatureAlgorithm: String?

        enum CodingKeys: String, CodingKey {
            case responseCode, responseMessage, purchaseTokenData, inappPurchaseData, dataSignature, signatureAlgorithm
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            responseCode = c.lenientString(.responseCode)
            responseMessage = c.lenientString(.responseMessage)
            purchaseTokenData = c.lenientString(.purchaseTokenData)
            inappPurchaseData = c.lenientString(.inappPurchaseData)
            dataSignature = c.lenientString(.dataSignature)
            signatureAlgorithm = c.lenientString(.signatureAlgorithm)
        }
    }

    /// Asks for PSS signatures, which Huawei recommends over PKCS #1 v1.5.
    static let appInfo = #"{"signatureAlgorithm":"SHA256WithRSA/PSS"}"#

    private func send(_ call: String, _ url: String, _ body: [String: String]) async throws(StoreCallError) -> Answer {
        let bytes = Array(StoreInput.canonicalJSON(body).utf8)
        for attempt in 0..<2 {
            let token = try await tokens.token(http: http)
            // Each attempt is a call Huawei counts, the one with a fresh token too.
            try await waitForTurn(call)
            let response: HTTPResponse
            do {
                response = try await http.execute(
                    HTTPRequest(
                        method: .post, url: url,
                        headers: [
                            (name: "Authorization", value: token.authorization),
                            (name: "Content-Type", value: "application/json; charset=UTF-8"),
                            (name: "Accept", value: "application/json"),
                            (name: "HW-IAP-APPINFO", value: Self.appInfo),
                        ], body: bytes, timeout: timeout))
            } catch {
                throw StoreCallError.huawei(
                    error.isRetryable ? .unavailable : .invalidRequest, call: call, message: error.description)
            }
            // A token Huawei no longer takes (expired early, revoked): one fresh fetch.
            if response.status == 401, attempt == 0 {
                await tokens.invalidate(token)
                continue
            }
            guard response.isSuccess else {
                let error = StoreCallError.from(
                    status: response.status, retryAfter: response.header("Retry-After"), call: call)
                if error.code == .rateLimited { await pause(for: error.retryAfter ?? .seconds(1)) }
                throw error
            }
            guard let answer = try? JSONDecoder().decode(Answer.self, from: response.bodyData),
                let code = answer.responseCode
            else {
                throw StoreCallError.huawei(
                    .malformedResponse, call: call, message: "no responseCode", status: response.status)
            }
            guard code == "0" else {
                throw StoreCallError.from(responseCode: code, message: answer.responseMessage, call: call)
            }
            return answer
        }
        throw StoreCallError.huawei(.unauthorized, call: call, message: "refused a fresh token", status: 401)
    }
}

/// Purchase data as Huawei signed it: the JSON text, its signature and the algorithm.
public struct HuaweiSignedPurchase: Sendable, Hashable {
    public var data: String
    public var signature: String
    public var algorithm: String?

    public init(data: String, signature: String, algorithm: String?) {
        self.data = data
        self.signature = signature
        self.algorithm = algorithm
    }

    /// The purchase data, when `key` vouches for its signature; nil when it does not (or
    /// the data is not JSON).
    public func verified(by key: HuaweiPublicKey) -> HuaweiPurchaseData? {
        guard key.isValid(signature: signature, of: data, algorithm: algorithm) else { return nil }
        return HuaweiPurchaseData(json: data)
    }
}
