import Foundation
import GooglePlay
import HTTPClient
import Hummingbird

extension StubGooglePlay {
    /// What `POST /stub/google/purchases` takes: a purchase Google will then vouch for.
    struct PurchaseDraft: Decodable {
        var purchaseToken: String
        var productID: String
        /// `product` (one-time, the default) or `subscription`.
        var kind: String?
        var orderID: String?
        /// `PURCHASED` (the default), `PENDING` or `CANCELLED`; for a subscription its state.
        var state: String?
        var obfuscatedAccountID: String?
        /// A subscription's end, RFC 3339.
        var expiryTime: String?
        /// A one-time purchase's units (1 by default).
        var quantity: Int?

        enum CodingKeys: String, CodingKey {
            case purchaseToken = "purchase_token"
            case productID = "product_id"
            case kind
            case orderID = "order_id"
            case state
            case obfuscatedAccountID = "obfuscated_account_id"
            case expiryTime = "expiry_time"
            case quantity
        }
    }

    /// The stub's own routes, for a stub in another process (`iap-lab stub-store`):
    ///
    /// - `POST /stub/google/purchases`: registers a purchase (``PurchaseDraft``), answering
    ///   `201` with what the API will answer for its token
    /// - `POST /stub/google/voided`: `{"purchase_token", "quantity"?}` voids it (a refund in
    ///   the voided list), or only `quantity` of its units
    /// - `POST /stub/google/renewals`: `{"purchase_token", "order_id", "expiry_time"}` renews
    ///   a subscription (the API then answers the new order, paid until `expiry_time`)
    /// - `POST /stub/google/notifications`: `{"url", "notification", "audience"?, "service_account"?}`
    ///   pushes `notification` (a `DeveloperNotification` object) to `url` as Cloud Pub/Sub
    ///   would, with an OIDC token the stub signs; answers `{"status", "message_id"}`
    /// - `POST /stub/google/push-token`: `{"audience", "service_account"?}` answers `{"token"}`,
    ///   an OIDC token for pushes made elsewhere (a fuzzer's)
    ///
    /// Numbers and times are checked before anything is registered: a `quantity` of 1 to
    /// 1,000,000, an `expiry_time` of the years 1970 to 9999. Anything else, or a body that is
    /// not JSON, is `400 INVALID_ARGUMENT` naming the member, and the stub goes on serving.
    func registerAdminRoutes(on router: Router<BasicRequestContext>) {
        registerNoticeRoutes(on: router)
        registerPushTokenRoute(on: router)
        router.post("/stub/google/purchases") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            let draft: PurchaseDraft
            do {
                draft = try JSONDecoder().decode(PurchaseDraft.self, from: Data(buffer: body))
            } catch {
                return Self.error(400, "INVALID_ARGUMENT", Self.expectedPurchase + ": " + StubField.describe(error))
            }
            guard !draft.purchaseToken.isEmpty, !draft.productID.isEmpty else {
                return Self.error(400, "INVALID_ARGUMENT", Self.expectedPurchase)
            }
            if let quantity = draft.quantity, !StubField.quantities.contains(quantity) {
                return Self.error(400, "INVALID_ARGUMENT", "quantity must be a whole number from 1 to 1000000")
            }
            if let expiry = draft.expiryTime, Self.date(expiry) == nil {
                return Self.error(
                    400, "INVALID_ARGUMENT", "expiry_time must be an RFC 3339 time of the years 1970-9999")
            }
            let order = draft.orderID ?? "GPA.\(UInt32.random(in: 1000...9999))-\(UInt32.random(in: 1000...9999))-0"
            if draft.kind == "subscription" {
                let subscription = SubscriptionPurchaseV2(
                    subscriptionState: draft.state ?? "SUBSCRIPTION_STATE_ACTIVE", latestOrderId: order,
                    lineItems: [
                        .init(productId: draft.productID, expiryTime: draft.expiryTime, latestSuccessfulOrderId: order)
                    ], obfuscatedExternalAccountId: draft.obfuscatedAccountID)
                self.register(token: draft.purchaseToken, subscription)
                return Self.encoded(subscription, status: 201)
            }
            let purchase = ProductPurchaseV2(
                productLineItem: [
                    .init(
                        productId: draft.productID,
                        productOfferDetails: .init(
                            quantity: draft.quantity ?? 1, refundableQuantity: draft.quantity ?? 1))
                ],
                purchaseState: draft.state ?? "PURCHASED", orderId: order,
                obfuscatedExternalAccountId: draft.obfuscatedAccountID,
                purchaseCompletionTime: ISO8601DateFormatter().string(from: self.now()))
            self.register(token: draft.purchaseToken, purchase)
            return Self.encoded(purchase, status: 201)
        }
        router.post("/stub/google/voided") { request, _ in
            try await Self.checked {
                let fields = try await StubField.body(request)
                let quantity = try StubField.integer(fields, "quantity", in: StubField.quantities)
                guard let token = fields["purchase_token"] as? String, self.product(token: token) != nil else {
                    return Self.error(404, "NOT_FOUND", "no purchase with that purchase_token")
                }
                self.void(token: token, at: self.now().addingTimeInterval(-1), quantity: quantity)
                return Self.encoded(["purchase_token": token], status: 200)
            }
        }
    }

    static let expectedPurchase =
        "expected {\"purchase_token\", \"product_id\", \"kind\", \"order_id\", \"state\", \"obfuscated_account_id\", \"expiry_time\", \"quantity\"}"

    /// An RFC 3339 time of the years 1970 to 9999, as Google writes them; nil for anything else.
    static func date(_ text: String) -> Date? {
        GooglePlayVerifier.date(text).flatMap {
            (0...Double(StubField.latestSecond)).contains($0.timeIntervalSince1970) ? $0 : nil
        }
    }

    /// `answer`, or `400 INVALID_ARGUMENT` naming the member it refused.
    static func checked(_ answer: () async throws -> Response) async throws -> Response {
        do {
            return try await answer()
        } catch let refusal as StubFieldError {
            return error(400, "INVALID_ARGUMENT", refusal.message)
        }
    }
}

extension StubGooglePlay {
    func registerNoticeRoutes(on router: Router<BasicRequestContext>) {
        router.post("/stub/google/renewals") { request, _ in
            try await Self.checked {
                let fields = try await StubField.body(request)
                guard let token = fields["purchase_token"] as? String, let order = fields["order_id"] as? String,
                    let expiry = (fields["expiry_time"] as? String).flatMap(Self.date)
                else {
                    return Self.error(
                        400, "INVALID_ARGUMENT",
                        "expected {\"purchase_token\", \"order_id\", \"expiry_time\"}, the time of the years 1970-9999")
                }
                guard self.renew(token: token, order: order, until: expiry) else {
                    return Self.error(404, "NOT_FOUND", "no subscription with that purchase_token")
                }
                return Self.encoded(["purchase_token": token, "order_id": order], status: 200)
            }
        }
        router.post("/stub/google/notifications") { request, _ in
            try await Self.checked {
                let fields = try await StubField.body(request)
                guard let url = fields["url"] as? String, url.hasPrefix("http"),
                    let notification = fields["notification"] as? [String: Any]
                else {
                    return Self.error(400, "INVALID_ARGUMENT", "expected {\"url\", \"notification\": {...}}")
                }
                let http = try CurlHTTPClient()
                defer { Task { await http.shutdown() } }
                do {
                    let pushed = try await self.push(
                        notification, to: url, audience: fields["audience"] as? String,
                        email: fields["service_account"] as? String ?? Self.pushServiceAccount, http: http)
                    return Self.json(["status": pushed.status, "message_id": pushed.messageID], status: 200)
                } catch {
                    return Self.error(502, "UNAVAILABLE", "the push to \(url) failed: \(error)")
                }
            }
        }
    }

    func registerPushTokenRoute(on router: Router<BasicRequestContext>) {
        router.post("/stub/google/push-token") { request, _ in
            try await Self.checked {
                let fields = try await StubField.body(request)
                guard let audience = fields["audience"] as? String, !audience.isEmpty else {
                    return Self.error(400, "INVALID_ARGUMENT", "expected {\"audience\", \"service_account\"}")
                }
                let email = fields["service_account"] as? String ?? Self.pushServiceAccount
                return Self.json(["token": self.pushToken(audience: audience, email: email)], status: 200)
            }
        }
    }
}
