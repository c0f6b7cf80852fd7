import Crypto
import CryptoExtras
import Foundation
import GooglePlay
import PipelineCore
import Synchronization

/// Google Play's side, as the pipeline meets it: the OAuth token endpoint of a service
/// account the stub made, and the Play Developer API's purchases (productsv2,
/// subscriptionsv2, acknowledge, consume, voided purchases) over purchases registered here.
///
/// The token endpoint checks the assertion as Google does (RS256 by the account's key, its
/// issuer, audience, scope and lifetime) and every API call checks the access token it
/// issued, so a client that signs or sends wrongly fails here too.
///
/// ```swift
/// let play = store.googlePlay
/// let keyFile = play.serviceAccountJSON(baseURL: "http://127.0.0.1:8090")   // IAP_GOOGLE_SERVICE_ACCOUNT
/// play.register(token: "tok-1", ProductPurchaseV2(...))
/// ```
public final class StubGooglePlay: Sendable {
    public struct Configuration: Sendable {
        /// How long each API answer waits.
        public var latency: Duration = .zero
        /// The first this many API calls answer `503`.
        public var failFirst = 0
        /// Then the next this many answer `429` with `Retry-After`.
        public var rateLimitFirst = 0
        public var retryAfterSeconds = 1
        /// The first this many acknowledgements and consumptions answer `503`.
        public var acknowledgeFailFirst = 0
        /// How long an access token lives.
        public var tokenLifetime = 3600
        /// What `orders.get` says one unit cost, in millionths of `orderCurrency`, and where the
        /// buyer is (ISO 3166-1 alpha-2).
        public var orderUnitMicros: Int64 = 990_000
        public var orderCurrency = "USD"
        public var buyerCountry = "US"

        public init() {}
    }

    /// What the stub answered, by call.
    public struct Stats: Sendable, Hashable {
        public var tokenExchanges = 0
        public var calls: [String: Int] = [:]
        public var refusedTokens = 0
        public var acknowledged: [String] = []
        public var consumed: [String] = []
        /// The service account whose access token acknowledged or consumed each purchase
        /// token (its `client_email`), the last call's.
        public var confirmedBy: [String: String] = [:]
        /// The `orders.reviewrefund` answers accepted, in order.
        public var refundReviewAnswers: [RefundReviewAnswer] = []
    }

    /// The service account's address.
    public let clientEmail = "iap-stub@stub-project.iam.gserviceaccount.com"
    /// Another service account's address (``serviceAccountJSON(baseURL:account:)``).
    public static func clientEmail(of account: String) -> String {
        "\(account)@stub-project.iam.gserviceaccount.com"
    }
    public let configuration: Mutex<Configuration>
    /// The service account's key, and the key that signs the OIDC tokens of Pub/Sub pushes
    /// (``pushToken(audience:email:issuedAt:lifetime:issuer:)``): made on first use, as RSA
    /// keys take a moment and most stubs never speak Google.
    private let keys = Mutex<[String: _RSA.Signing.PrivateKey]>([:])
    var key: _RSA.Signing.PrivateKey { lazyKey("service") }
    /// The key of the service account `email`, nil for one the stub never made.
    func key(of email: String) -> _RSA.Signing.PrivateKey? {
        email == clientEmail ? key : keys.withLock { $0["service:" + email] }
    }
    var pushKey: _RSA.Signing.PrivateKey { lazyKey("push") }

    private func lazyKey(_ name: String) -> _RSA.Signing.PrivateKey {
        keys.withLock { keys in
            if let key = keys[name] { return key }
            // Generating an RSA key fails only if the crypto library does.
            let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
            keys[name] = key
            return key
        }
    }
    let now: @Sendable () -> Date
    let state = Mutex(State())

    struct State {
        var products: [String: ProductPurchaseV2] = [:]
        var subscriptions: [String: SubscriptionPurchaseV2] = [:]
        var voided: [VoidedPurchase] = []
        /// Each token's expiry and the service account it was issued to.
        var accessTokens: [String: (expiry: Date, account: String)] = [:]
        var stats = Stats()
        var apiCalls = 0
        var acknowledgeCalls = 0
        /// Pending refund reviews opened, by their token: the order each is about.
        var refundReviews: [String: String] = [:]
    }

    public init(configuration: Configuration = .init(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = Mutex(configuration)
        self.now = now
    }

    /// The key file of the stub's service account, with its token endpoint under `baseURL`;
    /// of another account named `account` (an app of its own, with its own key), if given.
    public func serviceAccountJSON(baseURL: String, account: String? = nil) -> Data {
        let email = account.map(Self.clientEmail(of:)) ?? clientEmail
        let signer = account == nil ? key : lazyKey("service:" + email)
        let file: [String: String] = [
            "type": "service_account", "project_id": "stub-project", "private_key_id": "stub-key-1",
            "private_key": signer.pemRepresentation, "client_email": email,
            "token_uri": baseURL + Self.tokenPath,
        ]
        return (try? JSONSerialization.data(withJSONObject: file, options: .sortedKeys)) ?? Data()
    }

    static let tokenPath = "/google/oauth2/token"

    public var stats: Stats { state.withLock { $0.stats } }

    /// A one-time purchase under `token`.
    public func register(token: String, _ purchase: ProductPurchaseV2) {
        state.withLock { $0.products[token] = purchase }
    }

    /// A subscription under `token` (again, to renew or end it).
    public func register(token: String, _ subscription: SubscriptionPurchaseV2) {
        state.withLock { $0.subscriptions[token] = subscription }
    }

    /// Renews the subscription under `token`: a new order (Google's renewal orders end
    /// `..0`, `..1`, ...), paid until `expiry`. False when there is no such subscription.
    @discardableResult
    public func renew(token: String, order: String, until expiry: Date) -> Bool {
        state.withLock { state in
            guard var subscription = state.subscriptions[token] else { return false }
            let end = ISO8601DateFormatter().string(from: expiry)
            subscription.subscriptionState = "SUBSCRIPTION_STATE_ACTIVE"
            subscription.latestOrderId = order
            subscription.lineItems = subscription.lineItems.map {
                .init(productId: $0.productId, expiryTime: end, latestSuccessfulOrderId: order)
            }
            state.subscriptions[token] = subscription
            return true
        }
    }

    /// Voids the purchase under `token`: a refund or chargeback the voided list will show.
    /// With `quantity`, only that many units of a one-time purchase are refunded (a
    /// quantity-based partial refund): listed with `voidedQuantity`, and only to a reader
    /// asking with `includeQuantityBasedPartialRefund=true`; the purchase stays bought, with
    /// that many fewer units refundable.
    public func void(token: String, reason: Int = 1, at moment: Date, quantity: Int? = nil) {
        state.withLock { state in
            let order = state.products[token]?.orderId ?? state.subscriptions[token]?.latestOrderId
            state.voided.append(
                VoidedPurchase(
                    purchaseToken: token, orderId: order,
                    voidedTimeMillis: String(Int64(moment.timeIntervalSince1970 * 1000)), voidedReason: reason,
                    voidedSource: 0, voidedQuantity: quantity))
            guard var purchase = state.products[token] else { return }
            if let quantity, var offer = purchase.productLineItem.first?.productOfferDetails {
                let refundable = offer.refundableQuantity ?? offer.quantity ?? 1
                // Compared first, never subtracted past the end (the route takes 1 to 1,000,000).
                offer.refundableQuantity = quantity >= refundable ? 0 : refundable - quantity
                purchase.productLineItem[0].productOfferDetails = offer
                if offer.refundableQuantity ?? 0 > 0 {
                    state.products[token] = purchase
                    return
                }
            }
            purchase.purchaseStateContext = .init(purchaseState: "CANCELLED")
            state.products[token] = purchase
        }
    }

    /// Forgets the purchase under `token`, as Google does with one it no longer keeps: every
    /// call about it is then `404`.
    public func forget(token: String) {
        state.withLock { state in
            state.products[token] = nil
            state.subscriptions[token] = nil
        }
    }

    /// The purchase as the API would answer it now.
    public func product(token: String) -> ProductPurchaseV2? { state.withLock { $0.products[token] } }

    // MARK: - The token endpoint

    /// Checks an assertion and issues an access token, or says why not (OAuth's error shape).
    func exchange(form: [String: String], audience: String) -> (status: Int, body: [String: Any]) {
        func refuse(_ description: String) -> (Int, [String: Any]) {
            (400, ["error": "invalid_grant", "error_description": description])
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return (400, ["error": "unsupported_grant_type", "error_description": "grant_type must be jwt-bearer"])
        }
        let parts = (form["assertion"] ?? "").split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let claimBytes = Base64URL.decode(parts[1]),
            let signatureBytes = Base64URL.decode(parts[2]),
            let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any]
        else { return refuse("Invalid JWT: not three base64url parts of JSON") }
        guard header["alg"] as? String == "RS256" else { return refuse("Invalid JWT: alg must be RS256") }
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        // Checked with the key of the account it claims to be (the stub's own for one it
        // never made, which then fails as an unknown issuer).
        let issuer = claims["iss"] as? String ?? ""
        let signer = key(of: issuer) ?? key
        guard
            signer.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signatureBytes), for: SHA256.hash(data: input),
                padding: .insecurePKCS1v1_5)
        else { return refuse("Invalid JWT Signature.") }
        guard key(of: issuer) != nil else { return refuse("Invalid issuer") }
        guard claims["aud"] as? String == audience else { return refuse("Invalid audience: \(audience) expected") }
        guard
            (claims["scope"] as? String)?.split(separator: " ").contains(
                "https://www.googleapis.com/auth/androidpublisher") == true
        else { return refuse("Invalid scope: androidpublisher is required") }
        let now = now().timeIntervalSince1970
        guard let iat = claims["iat"] as? Double, let exp = claims["exp"] as? Double, exp > now, iat <= now + 60,
            exp - iat <= 3600
        else {
            return refuse("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe")
        }
        let lifetime = configuration.withLock { $0.tokenLifetime }
        let token = "ya29.stub-" + UUID().uuidString.lowercased()
        state.withLock { state in
            state.accessTokens[token] = (Date(timeIntervalSince1970: now + Double(lifetime)), issuer)
            state.stats.tokenExchanges += 1
        }
        return (200, ["access_token": token, "expires_in": lifetime, "token_type": "Bearer"])
    }

    /// The service account of the live token `authorization` carries, nil when this stub
    /// never issued it or it expired.
    func admits(_ authorization: String?) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return nil }
        let token = String(authorization.dropFirst("Bearer ".count))
        return state.withLock { state in
            guard let issued = state.accessTokens[token], issued.expiry > now() else {
                state.stats.refusedTokens += 1
                return nil
            }
            return issued.account
        }
    }

    /// Revokes every access token: the next call is answered `401`.
    public func revokeAccessTokens() {
        state.withLock { $0.accessTokens.removeAll() }
    }
}
