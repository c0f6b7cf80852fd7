import Crypto
import CryptoExtras
import Foundation
import Huawei
import Synchronization

/// Huawei AppGallery's IAP servers, as the pipeline meets them: the OAuth token endpoint
/// (`client_credentials` of the stub's client), the Order service (verify a purchase token,
/// confirm a consumable) and the Subscription service (read a subscription), over purchases
/// registered here. Purchase data and notifications are signed with the stub's own RSA key
/// (``publicKeyBase64`` is what `IAP_HUAWEI_PUBLIC_KEY` takes), PSS when the caller asks.
///
/// ```swift
/// let huawei = store.huawei
/// huawei.register(StubHuawei.Purchase(token: "tok-1", productID: "coins_100", kind: .consumable))
/// let settings = huawei.settings(baseURL: "http://127.0.0.1:8090")
/// ```
public final class StubHuawei: Sendable {
    public struct Configuration: Sendable {
        /// The first this many API calls answer `503`.
        public var failFirst = 0
        /// Then the next this many answer `429` with `Retry-After`.
        public var rateLimitFirst = 0
        public var retryAfterSeconds = 1
        /// Then the next this many answer `200` with `responseCode` `-1` (Huawei's own trouble).
        public var errorCodeFirst = 0
        /// How long an access token lives.
        public var tokenLifetime = 3600
        /// Sign purchase data with another key than ``StubHuawei/publicKeyBase64``'s: a forgery.
        public var forgeSignatures = false

        public init() {}
    }

    /// What the stub answered, by call.
    public struct Stats: Sendable, Hashable {
        public var tokenFetches = 0
        public var calls: [String: Int] = [:]
        public var refusedTokens = 0
        public var confirmed: [String] = []
    }

    /// A purchase Huawei knows, by its token.
    public struct Purchase: Sendable, Hashable {
        public var token: String
        public var productID: String
        public var kind: HuaweiPurchase.Kind
        public var orderID: String
        /// 0 purchased, 1 cancelled, 2 refunded, 3 pending.
        public var purchaseState: Int
        public var subscriptionID: String?
        public var purchaseTime: Date
        public var expirationDate: Date?
        public var cancelTime: Date?
        public var sandbox: Bool
        public var confirmed = false

        public init(
            token: String, productID: String, kind: HuaweiPurchase.Kind, orderID: String? = nil, purchaseState: Int = 0,
            subscriptionID: String? = nil, purchaseTime: Date = Date(timeIntervalSince1970: 1_790_000_000),
            expirationDate: Date? = nil, sandbox: Bool = false
        ) {
            self.token = token
            self.productID = productID
            self.kind = kind
            self.orderID = orderID ?? "stub.order.\(token)"
            self.purchaseState = purchaseState
            self.subscriptionID = subscriptionID ?? (kind == .subscription ? "sub.\(token)" : nil)
            self.purchaseTime = purchaseTime
            self.expirationDate = expirationDate
            self.sandbox = sandbox
        }
    }

    public static let clientID = "107654321"
    public static let clientSecret = "stub-huawei-secret"
    public let configuration: Mutex<Configuration>
    let now: @Sendable () -> Date
    let state = Mutex(State())
    /// The signing key and a forger's, made on first use (RSA keys take a moment).
    private let keys = Mutex<[String: _RSA.Signing.PrivateKey]>([:])

    struct State {
        var purchases: [String: Purchase] = [:]
        var accessTokens: [String: Date] = [:]
        var stats = Stats()
        var apiCalls = 0
    }

    public init(configuration: Configuration = .init(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = Mutex(configuration)
        self.now = now
    }

    func key(_ name: String) -> _RSA.Signing.PrivateKey {
        keys.withLock { keys in
            if let key = keys[name] { return key }
            // Generating an RSA key fails only if the crypto library does.
            let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
            keys[name] = key
            return key
        }
    }

    /// The IAP public key, base64 DER, as AppGallery Connect shows it (`IAP_HUAWEI_PUBLIC_KEY`).
    public var publicKeyBase64: String { key("iap").publicKey.derRepresentation.base64EncodedString() }

    /// Settings that reach this stub under `baseURL` (its routes are under `/huawei`).
    public func settings(baseURL: String) -> HuaweiSettings {
        HuaweiSettings(
            clientID: Self.clientID, clientSecret: Self.clientSecret,
            publicKey: HuaweiPublicKey(base64: publicKeyBase64)!, oauthURL: baseURL + "/huawei/oauth2/v3/token",
            orderURL: baseURL + "/huawei/orders", subscriptionURL: baseURL + "/huawei/subscr")
    }

    public var stats: Stats { state.withLock { $0.stats } }

    /// A purchase the services will vouch for (again, to change it).
    public func register(_ purchase: Purchase) {
        state.withLock { $0.purchases[purchase.token] = purchase }
    }

    /// The purchase under `token`, as the services would read it now.
    public func purchase(token: String) -> Purchase? { state.withLock { $0.purchases[token] } }

    /// Refunds the purchase under `token` at `moment`. False when there is none.
    @discardableResult
    public func refund(token: String, at moment: Date) -> Bool {
        state.withLock { state in
            guard var purchase = state.purchases[token] else { return false }
            purchase.purchaseState = 2
            purchase.cancelTime = moment
            state.purchases[token] = purchase
            return true
        }
    }

    /// Renews the subscription under `token`: a new order, paid until `expiry`.
    @discardableResult
    public func renew(token: String, order: String, until expiry: Date) -> Bool {
        state.withLock { state in
            guard var purchase = state.purchases[token], purchase.kind == .subscription else { return false }
            purchase.orderID = order
            purchase.expirationDate = expiry
            purchase.purchaseState = 0
            state.purchases[token] = purchase
            return true
        }
    }

    // MARK: - Signing

    /// `text` signed as Huawei signs: SHA256WithRSA, or SHA256WithRSA/PSS. With `forged`, by another key.
    public func sign(_ text: String, pss: Bool, forged: Bool = false) -> String {
        let signer = key(forged ? "forger" : "iap")
        let signature = try? signer.signature(
            for: SHA256.hash(data: Array(text.utf8)), padding: pss ? .PSS : .insecurePKCS1v1_5)
        return signature?.rawRepresentation.base64EncodedString() ?? ""
    }

    /// The purchase data Huawei would sign for `purchase` (`InAppPurchaseData`).
    func purchaseData(_ purchase: Purchase) -> String {
        func millis(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }
        var data: [String: Any] = [
            "applicationId": Int(Self.clientID) ?? 0, "autoRenewing": purchase.kind == .subscription,
            "orderId": purchase.orderID,
            "kind": purchase.kind == .consumable ? 0 : purchase.kind == .subscription ? 2 : 1,
            "packageName": "com.example.game.huawei", "productId": purchase.productID,
            "purchaseTime": millis(purchase.purchaseTime), "purchaseState": purchase.purchaseState,
            "purchaseToken": purchase.token, "consumptionState": purchase.confirmed ? 1 : 0,
            "confirmed": purchase.confirmed ? 1 : 0, "currency": "EUR", "price": 199, "country": "DE",
        ]
        if purchase.sandbox { data["purchaseType"] = 0 }
        if let subscription = purchase.subscriptionID, purchase.kind == .subscription {
            data["subscriptionId"] = subscription
            data["subIsvalid"] = purchase.purchaseState == 0 && (purchase.expirationDate ?? .distantPast) > now()
        }
        if let expiry = purchase.expirationDate { data["expirationDate"] = millis(expiry) }
        if let cancelled = purchase.cancelTime { data["cancelTime"] = millis(cancelled) }
        let bytes = (try? JSONSerialization.data(withJSONObject: data, options: .sortedKeys)) ?? Data()
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - The token endpoint

    /// Checks the client's credentials and issues an app-level access token, or says why not.
    func exchange(form: [String: String]) -> (status: Int, body: [String: Any]) {
        guard form["grant_type"] == "client_credentials" else {
            return (
                400, ["error": 1102, "sub_error": 20001, "error_description": "grant_type must be client_credentials"]
            )
        }
        guard form["client_id"] == Self.clientID else {
            return (400, ["error": 1101, "sub_error": 20003, "error_description": "client_id does not exist"])
        }
        guard form["client_secret"] == Self.clientSecret else {
            return (400, ["error": 1101, "sub_error": 12304, "error_description": "client secret is wrong"])
        }
        let lifetime = configuration.withLock { $0.tokenLifetime }
        let token = "stub-at-" + UUID().uuidString.lowercased()
        state.withLock { state in
            state.accessTokens[token] = now().addingTimeInterval(Double(lifetime))
            state.stats.tokenFetches += 1
        }
        return (200, ["access_token": token, "expires_in": lifetime, "token_type": "Bearer"])
    }

    /// Whether `authorization` is `Basic base64("APPAT:" + token)` of a live token issued here.
    func admits(_ authorization: String?) -> Bool {
        guard let authorization, authorization.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst("Basic ".count))),
            let text = String(data: decoded, encoding: .utf8), text.hasPrefix("APPAT:")
        else { return false }
        let token = String(text.dropFirst("APPAT:".count))
        return state.withLock { state in
            guard let expiry = state.accessTokens[token], expiry > now() else {
                state.stats.refusedTokens += 1
                return false
            }
            return true
        }
    }

    /// Revokes every access token: the next call is answered `401`.
    public func revokeAccessTokens() {
        state.withLock { $0.accessTokens.removeAll() }
    }
}
