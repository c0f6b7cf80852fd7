import Foundation
import Hummingbird
import PipelineCore

extension StubAppStore {
    /// The largest request body read; Apple's receipts are tens of kilobytes.
    static let maxBodySize = 4 << 20

    /// The stub's routes, to serve on their own or mount into another application:
    ///
    /// - `POST /verifyReceipt`: production, as `https://buy.itunes.apple.com/verifyReceipt`
    /// - `POST /sandbox/verifyReceipt`: sandbox, as `https://sandbox.itunes.apple.com/verifyReceipt`
    /// - `POST /stub/receipts`: mints a receipt (see ``StubReceipt``), answering
    ///   `{"receipt_data": "...", "receipt": {...}}`; with `"format": "pkcs7"` a PKCS #7 receipt
    ///   signed like Apple's (see ``receiptAuthority``)
    /// - `GET /stub/receipt-root`: the DER root certificate of those PKCS #7 receipts
    /// - `GET /stub/stats`: ``StubStoreStats``
    /// - the App Store Server API at `/inApps/...` and `/sandbox/inApps/...`, with
    ///   `POST /stub/transactions` (see ``addServerAPIRoutes(to:)``)
    /// - every other store's, each under its own path, as its part adds them (``parts``):
    ///   Google Play's token endpoint and Developer API under `/google` (``StubGooglePlay``),
    ///   Huawei AppGallery's under `/huawei` (``StubHuawei``), Stripe's under `/stripe` (``StubStripe``)
    ///
    /// A `GET` of either verify URL is answered status `21000`, as Apple answers a request
    /// not made with `POST`.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        for environment in StubReceipt.Environment.allCases {
            let path = RouterPath(Self.path(environment))
            router.post(path) { request, _ in
                try await self.handleVerify(request, at: environment)
            }
            router.get(path) { _, _ in
                Self.json(written: StubVerifyResponse(status: 21000, environment: environment.rawValue))
            }
        }
        storeKit.registerRoutes(on: router)
        router.post("/stub/receipts") { request, _ in
            try await self.handleMint(request)
        }
        router.get("/stub/stats") { _, _ in
            Self.json(self.stats)
        }
        router.get("/stub/receipt-root") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/pkix-cert"],
                body: .init(byteBuffer: ByteBuffer(bytes: self.receiptAuthority.rootDER)))
        }
        addServerAPIRoutes(to: router)
        for part in parts { part.registerRoutes(on: router) }
        return router
    }

    /// Where `environment`'s verify endpoint is served.
    static func path(_ environment: StubReceipt.Environment) -> String {
        environment == .production ? "/verifyReceipt" : "/sandbox/verifyReceipt"
    }

    private func handleVerify(_ request: Request, at environment: StubReceipt.Environment) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: Self.maxBodySize)
        let fate = admit(at: environment)
        if configuration.latency > .zero {
            try await Task.sleep(for: configuration.latency)
        }
        switch fate {
        case .answer:
            return Self.json(written: await verify(body: Data(buffer: body), at: environment))
        case .hang:
            try await Task.sleep(for: configuration.hangDuration)
            return Self.unavailable()
        case .unavailable:
            return Self.unavailable()
        }
    }

    private func handleMint(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: Self.maxBodySize)
        let draft: StubReceiptDraft
        do {
            draft = try WireCoding.decoder().decode(StubReceiptDraft.self, from: Data(buffer: body))
        } catch {
            return Self.error(
                .badRequest, code: "invalid_receipt",
                message: "expected a receipt: {\"transactions\": [{\"product_id\": \"...\"}], ...} (\(error))")
        }
        do {
            try draft.check()
        } catch {
            return Self.error(.badRequest, code: error.code, message: error.message)
        }
        let receipt = draft.receipt(bundleID: configuration.bundleID, now: configuration.now()) {
            nextTransactionID()
        }
        let receiptData = draft.format == .pkcs7 ? issuePKCS7(receipt) : issue(receipt)
        return Self.json(StubMintResponse(receiptData: receiptData, receipt: receipt))
    }

    // MARK: Responses

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        json(bytes: (try? WireCoding.encoder().encode(value)).map(Array.init) ?? Array("{}".utf8), status: status)
    }

    /// `value` written by ``JSONText``: the bytes ``json(_:status:)`` would send, for less.
    static func json(written value: some JSONTextValue, status: HTTPResponse.Status = .ok) -> Response {
        json(bytes: value.jsonBytes(capacity: 2048), status: status)
    }

    private static func json(bytes: [UInt8], status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private static func unavailable() -> Response {
        Response(
            status: .serviceUnavailable, headers: [.contentType: "text/plain"],
            body: .init(byteBuffer: ByteBuffer(string: "Service Unavailable")))
    }

    private static func error(_ status: HTTPResponse.Status, code: String, message: String) -> Response {
        struct Body: Encodable {
            struct Detail: Encodable {
                var code: String
                var message: String
            }
            var error: Detail
        }
        return json(Body(error: .init(code: code, message: message)), status: status)
    }
}
