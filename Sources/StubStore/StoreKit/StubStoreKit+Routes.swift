import AppStore
import Foundation
import HTTPClient
import Hummingbird

extension StubStoreKit {
    /// Admin routes for tests, demos and curl:
    /// - `POST /stub/transactions/signed` mints a signed transaction (`{"product_id", ...}`).
    /// - `POST /stub/notifications` signs a notification and POSTs it to `url`, as Apple would.
    /// - `POST /stub/notifications/signed` signs one and answers it (`signed_payload`), posting nothing.
    /// - `GET /stub/root-ca` is the root certificate (DER, base64) to trust.
    ///
    /// A transaction's `quantity` outside 1-1,000,000 is `400 {"error": {"code":
    /// "invalid_quantity", "message"}}`, and the stub goes on serving.
    func registerRoutes(on router: Router<BasicRequestContext>) {
        router.get("/stub/root-ca") { _, _ in Data(self.rootDER).base64EncodedString() }
        router.post("/stub/transactions/signed") { request, _ in
            try await Self.checked {
                let draft = try await Self.decode(TransactionDraft.self, request)
                let transaction = try draft.transaction()
                return try Self.json([
                    "signed_transaction": self.signTransaction(transaction),
                    "transaction_id": transaction.transactionID,
                ])
            }
        }
        router.post("/stub/notifications") { request, _ in
            try await Self.checked {
                let draft = try await Self.decode(NotificationDraft.self, request)
                guard let url = draft.url else { throw HTTPError(.badRequest, message: "url is required") }
                let (signed, uuid) = try self.sign(draft)
                // A receiver that cannot be reached is a failed delivery, as Apple sees it: noted
                // in the history, and answered, not thrown.
                let status = try? await self.send(signed, to: url)
                return try Self.json([
                    "notification_uuid": uuid, "delivered_status": status.map(String.init) ?? "no_response",
                ])
            }
        }
        router.post("/stub/notifications/signed") { request, _ in
            try await Self.checked {
                let (signed, uuid) = try self.sign(try await Self.decode(NotificationDraft.self, request))
                return try Self.json(["notification_uuid": uuid, "signed_payload": signed])
            }
        }
    }

    /// `answer`, or `400` in the stub's own error shape naming the member it refused.
    private static func checked(_ answer: () async throws -> Response) async throws -> Response {
        do {
            return try await answer()
        } catch let refusal as StubFieldError {
            let body = ["error": ["code": refusal.code, "message": refusal.message]]
            return Response(
                status: .badRequest, headers: [.contentType: "application/json"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        bytes: try JSONSerialization.data(withJSONObject: body, options: .sortedKeys))))
        }
    }

    /// The notification a draft describes, signed, and its new `notificationUUID`.
    private func sign(_ draft: NotificationDraft) throws -> (signedPayload: String, uuid: String) {
        guard let type = ResponseBodyV2DecodedPayload.NotificationType(rawValue: draft.notificationType) else {
            throw HTTPError(.badRequest, message: "unknown notification_type \(draft.notificationType)")
        }
        let uuid = UUID().uuidString.lowercased()
        let signed = signNotification(
            type: type, subtype: draft.subtype.flatMap(ResponseBodyV2DecodedPayload.Subtype.init(rawValue:)),
            transaction: try draft.transaction?.transaction(), gracePeriodExpiresDate: draft.gracePeriodExpiresDate,
            uuid: uuid)
        return (signed, uuid)
    }

    /// POSTs `{"signedPayload": ...}` to `url`, as Apple would, and notes the attempt in
    /// ``history``; returns the receiver's status.
    public func send(_ signedPayload: String, to url: String) async throws -> Int {
        let client = try CurlHTTPClient()
        defer { Task { await client.shutdown() } }
        let body = try JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload])
        let deployment: StubReceipt.Environment = environment == .production ? .production : .sandbox
        do {
            let response = try await client.execute(
                HTTPClient.HTTPRequest(
                    method: .post, url: url, headers: [(name: "Content-Type", value: "application/json")],
                    body: Array(body),
                    timeout: .seconds(10)))
            history.record(signedPayload, environment: deployment, status: response.status)
            return response.status
        } catch {
            history.record(signedPayload, environment: deployment, status: nil)
            throw error
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        let body = try await request.body.collect(upTo: 1 << 20)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(T.self, from: Data(buffer: body))
        } catch {
            throw HTTPError(.badRequest, message: "malformed request: \(error)")
        }
    }

    private static func json(_ object: [String: String]) throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(
                byteBuffer: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys)))
        )
    }
}

struct TransactionDraft: Decodable {
    var transactionID: String?
    var originalTransactionID: String?
    var productID: String
    var quantity: Int?
    var type: String?
    var expiresDate: Date?
    var revocationDate: Date?
    var appAccountToken: String?

    enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case quantity, type
        case expiresDate = "expires_date"
        case revocationDate = "revocation_date"
        case appAccountToken = "app_account_token"
    }

    func transaction() throws -> StubTransaction {
        if let quantity, !StubField.quantities.contains(quantity) {
            throw StubFieldError(
                code: "invalid_quantity", member: "quantity",
                message: "quantity must be a whole number from 1 to 1000000")
        }
        let kind = type.map(JWSTransactionDecodedPayload.ProductType.init(rawValue:)) ?? .consumable
        guard let kind else { throw HTTPError(.badRequest, message: "unknown type \(type ?? "")") }
        var transaction = StubTransaction(
            originalTransactionID: originalTransactionID, productID: productID, quantity: quantity ?? 1, type: kind,
            expiresDate: expiresDate, revocationDate: revocationDate, appAccountToken: appAccountToken)
        if let transactionID { transaction.transactionID = transactionID }
        return transaction
    }
}

struct NotificationDraft: Decodable {
    /// Where `POST /stub/notifications` delivers it.
    var url: String?
    var notificationType: String
    var subtype: String?
    var transaction: TransactionDraft?
    var gracePeriodExpiresDate: Date?

    enum CodingKeys: String, CodingKey {
        case url
        case notificationType = "notification_type"
        case subtype, transaction
        case gracePeriodExpiresDate = "grace_period_expires_date"
    }
}
