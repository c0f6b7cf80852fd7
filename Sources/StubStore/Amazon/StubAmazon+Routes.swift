import Amazon
import Foundation
import Hummingbird

extension StubAmazon: StubStorePart {
    public static let storeID = AmazonStore.id

    /// The stub's app and its RVS; its certificate served under `base.url`.
    public func settings(_ base: StubStoreBase) throws -> [String: String] {
        serve(at: base.url)
        return [
            "IAP_AMAZON_SHARED_SECRET": Self.sharedSecret,
            "IAP_AMAZON_PACKAGE_NAME": Self.packageName,
            "IAP_AMAZON_RVS_URL": base.url + "/amazon",
        ]
    }

    /// - `GET /amazon[/sandbox]/version/1.0/verifyReceiptId/developer/<secret>/user/<user>/receiptId/<receipt>`:
    ///   RVS (the configured failures first, then `496` another secret, `400` no such receipt,
    ///   `497` another user's, `410` one no longer valid, else `200` and the receipt)
    /// - `GET /amazon/sns/SimpleNotificationService-stub.pem`: the certificate SNS signs with
    /// - `POST /stub/amazon/receipts`: `{"user_id", "product_id", "product_type"?, "quantity"?}`
    ///   registers a purchase, answering `201` and RVS's receipt
    /// - `POST /stub/amazon/notifications`: `{"type", "receipt_id", "forged"?}` answers the SNS
    ///   message's body to post
    public func registerRoutes(on router: Router<BasicRequestContext>) {
        let path = "version/1.0/verifyReceiptId/developer/:secret/user/:user/receiptId/:receipt"
        for prefix in ["/amazon/", "/amazon/sandbox/"] {
            router.get(RouterPath(prefix + path)) { request, _ in self.answer(request.uri.path) }
        }
        router.get(RouterPath(Self.certificatePath)) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/x-pem-file"],
                body: .init(byteBuffer: ByteBuffer(string: self.certificatePEM)))
        }
        router.post("/stub/amazon/receipts") { request, _ in
            try await StubField.checked {
                let fields = try await StubField.body(request)
                let quantity = try StubField.integer(fields, "quantity", in: 1...100_000) ?? 1
                guard let user = fields["user_id"] as? String, !user.isEmpty,
                    let product = fields["product_id"] as? String, !product.isEmpty,
                    let type = AmazonReceipt.ProductType(rawValue: fields["product_type"] as? String ?? "CONSUMABLE")
                else {
                    throw StubFieldError(
                        code: "invalid_request",
                        message: #"expected {"user_id", "product_id", "product_type"?, "quantity"?}"#)
                }
                let receipt = self.buy(userID: user, productID: product, type: type, quantity: quantity)
                return StubField.json(receipt.json, status: 201)
            }
        }
        router.post("/stub/amazon/notifications") { request, _ in
            try await StubField.checked {
                let fields = try await StubField.body(request)
                guard let type = fields["type"] as? String, let receipt = fields["receipt_id"] as? String,
                    self.receipt(receipt) != nil
                else { throw StubFieldError(code: "not_found", message: "no receipt registered under receipt_id") }
                let message = self.notification(type, receiptID: receipt, forged: fields["forged"] as? Bool ?? false)
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; charset=UTF-8"],
                    body: .init(byteBuffer: ByteBuffer(bytes: message.body)))
            }
        }
    }

    /// RVS's answer for the call at `path` (its last six segments: secret, user, receipt).
    private func answer(_ path: String) -> Response {
        let settings = configuration.withLock { $0 }
        let calls = state.withLock { state in
            state.calls += 1
            return state.calls
        }
        if calls <= settings.failFirst { return status(500) }
        if calls <= settings.failFirst + settings.rateLimitFirst { return status(429) }
        let segments = path.split(separator: "/").suffix(6).map { String($0).removingPercentEncoding ?? String($0) }
        guard segments.count == 6, segments[1] == Self.sharedSecret else { return status(496) }
        let (user, id) = (segments[3], segments[5])
        let (gone, found) = state.withLock { ($0.gone.contains(id), $0.receipts[id]) }
        if gone { return status(410) }
        guard let found else { return status(400) }
        guard found.userID == user else { return status(497) }
        return StubField.json(found.receipt.json, status: 200)
    }

    private func status(_ code: Int) -> Response {
        StubField.json(["message": "RVS status \(code)"], status: code)
    }
}
