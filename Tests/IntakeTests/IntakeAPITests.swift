import Broker
import Database
import DatabaseSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Intake

/// The intake's HTTP contract, driven through its router against a real SQLite file.
@Suite struct IntakeAPITests {
    static let token = "test-token-0123456789"
    static let receipt = Data("a real receipt".utf8).base64EncodedString()

    /// Runs `body` with a test client of a fresh intake; the relay is not running, so
    /// committed receipts stay unpublished, which lets tests count what was stored.
    func withIntake(_ body: @escaping @Sendable (any TestClientProtocol, SQLiteDatabase) async throws -> Void)
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let connection = AMQPConnection(configuration: AMQPConfiguration(), logger: Logger(label: "test"))
        var configuration = IntakeConfiguration(apiTokens: [Self.token])
        configuration.stores = LiveIntake.stores
        let intake = Intake(
            configuration: configuration, database: database,
            catalog: Catalog(products: []),
            connection: connection,
            topology: PipelineTopology(prefix: "unused"), logger: Logger(label: "test"))
        let app = Application(router: intake.router())
        try await app.test(.router) { client in try await body(client, database) }
    }

    func post(
        _ client: any TestClientProtocol, _ json: String, token: String? = token,
        contentType: String = "application/json",
        headers extra: HTTPFields = [:]
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        var headers: HTTPFields = [.contentType: contentType]
        if let token { headers[.authorization] = "Bearer \(token)" }
        headers.append(contentsOf: extra)
        return try await client.execute(
            uri: "/v1/receipts", method: .post, headers: headers, body: ByteBuffer(string: json)
        ) {
            response in
            (
                response.status,
                (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:]
            )
        }
    }

    func errorCode(_ body: [String: Any]) -> String? { (body["error"] as? [String: Any])?["code"] as? String }
    func errorField(_ body: [String: Any]) -> String? { (body["error"] as? [String: Any])?["field"] as? String }

    @Test func acceptedReceiptIsCommittedAndAnswered202() async throws {
        try await withIntake { client, database in
            let (status, body) = try await post(
                client, #"{"account_id": "player-1", "receipt_data": "\#(Self.receipt)"}"#)
            #expect(status == .accepted)
            #expect(body["status"] as? String == "received")
            let id = try #require(body["receipt_id"] as? String)
            let stored = try #require(try await ReceiptRepository(database).receipt(id: id))
            #expect(stored.accountID == "player-1")
            await #expect(try IntakeRepository(database).unpublished(limit: 10).map(\.id) == [id])
        }
    }

    @Test func samePayloadForTheSameAccountAnswers200WithTheFirstReceipt() async throws {
        try await withIntake { client, database in
            let json = #"{"account_id": "player-1", "receipt_data": "\#(Self.receipt)"}"#
            let (first, firstBody) = try await post(client, json)
            let (second, secondBody) = try await post(client, json)
            #expect(first == .accepted)
            #expect(second == .ok)
            #expect(firstBody["receipt_id"] as? String == secondBody["receipt_id"] as? String)
            await #expect(try IntakeRepository(database).unpublished(limit: 10).count == 1)
        }
    }

    @Test func idempotencyKeyReusedForAnotherBodyIs422() async throws {
        try await withIntake { client, database in
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "key-1"]
            let (first, _) = try await post(
                client, #"{"account_id": "p", "receipt_data": "\#(Self.receipt)"}"#, headers: key)
            let other = Data("another".utf8).base64EncodedString()
            let (second, body) = try await post(
                client, #"{"account_id": "p", "receipt_data": "\#(other)"}"#, headers: key)
            #expect(first == .accepted)
            #expect(second == .unprocessableContent)
            #expect(errorCode(body) == "idempotency_key_reused")
            await #expect(try IntakeRepository(database).unpublished(limit: 10).count == 1)
        }
    }

    @Test(
        arguments: [
            ("{not json", "invalid_json", nil),
            ("[1, 2]", "invalid_json", nil),
            (#"{"receipt_data": "YQ=="}"#, "missing_field", "account_id"),
            (#"{"account_id": "p", "receipt_data": "YQ==", "coins": 5}"#, "unknown_field", "coins"),
            (#"{"account_id": "p"}"#, "missing_receipt", "receipt_data"),
            (
                #"{"account_id": "p", "receipt_data": "YQ==", "signed_transaction": "a.b.c"}"#, "ambiguous_receipt",
                "signed_transaction"
            ),
            (#"{"account_id": "p", "receipt_data": "not base64!"}"#, "invalid_receipt_data", "receipt_data"),
            (#"{"account_id": "p", "receipt_data": 42}"#, "invalid_receipt_data", "receipt_data"),
            (
                #"{"account_id": "p", "signed_transaction": "only.two"}"#, "invalid_signed_transaction",
                "signed_transaction"
            ),
            (#"{"account_id": "bad id with spaces", "receipt_data": "YQ=="}"#, "invalid_account_id", "account_id"),
            (#"{"account_id": "", "receipt_data": "YQ=="}"#, "invalid_account_id", "account_id"),
            (
                "{\"account_id\": \"\(String(repeating: "a", count: 129))\", \"receipt_data\": \"YQ==\"}",
                "invalid_account_id", "account_id"
            ),
            (#"{"account_id": "p", "receipt_data": "YQ==", "order_id": "o/1"}"#, "invalid_order_id", "order_id"),
        ] as [(String, String, String?)])
    func badBodiesGet400WithACodeAndStoreNothing(json: String, code: String, field: String?) async throws {
        try await withIntake { client, database in
            let (status, body) = try await post(client, json)
            #expect(status == .badRequest)
            #expect(errorCode(body) == code)
            #expect(errorField(body) == field)
            await #expect(try IntakeRepository(database).unpublished(limit: 10).isEmpty)
        }
    }

    @Test func bodyOverOneMebibyteIs413() async throws {
        try await withIntake { client, database in
            let big = String(repeating: "A", count: (1 << 20) + 16)
            let (status, body) = try await post(client, #"{"account_id": "p", "receipt_data": "\#(big)"}"#)
            #expect(status == .contentTooLarge)
            #expect(errorCode(body) == "payload_too_large")
            await #expect(try IntakeRepository(database).unpublished(limit: 10).isEmpty)
        }
    }

    @Test func wrongContentTypeIs415() async throws {
        try await withIntake { client, database in
            let (status, body) = try await post(
                client, #"{"account_id": "p", "receipt_data": "YQ=="}"#, contentType: "text/plain")
            #expect(status == .unsupportedMediaType)
            #expect(errorCode(body) == "unsupported_media_type")
            await #expect(try IntakeRepository(database).unpublished(limit: 10).isEmpty)
        }
    }

    @Test(arguments: [nil, "wrong-token-0123456789"] as [String?])
    func missingOrWrongTokenIs401(token: String?) async throws {
        try await withIntake { client, database in
            let (status, body) = try await post(client, #"{"account_id": "p", "receipt_data": "YQ=="}"#, token: token)
            #expect(status == .unauthorized)
            #expect(errorCode(body) == "unauthorized")
            await #expect(try IntakeRepository(database).unpublished(limit: 10).isEmpty)
            let read = try await client.execute(uri: "/v1/accounts/p", method: .get) { $0.status }
            #expect(read == .unauthorized)
        }
    }

    @Test func unknownReceiptIs404AndAnUnknownAccountToo() async throws {
        try await withIntake { client, _ in
            let auth: HTTPFields = [.authorization: "Bearer \(Self.token)"]
            let receipt = try await client.execute(uri: "/v1/receipts/no-such-receipt", method: .get, headers: auth) {
                $0
            }
            #expect(receipt.status == .notFound)
            #expect(
                errorCode(
                    (try? JSONSerialization.jsonObject(with: Data(buffer: receipt.body)) as? [String: Any]) ?? [:])
                    == "not_found")
            let account = try await client.execute(uri: "/v1/accounts/nobody", method: .get, headers: auth) {
                $0.status
            }
            #expect(account == .notFound)
            // A path parameter is read percent-decoded: `game%3Anobody` is the id `game:nobody`, not invalid
            let encoded = try await client.execute(uri: "/v1/accounts/game%3Anobody", method: .get, headers: auth) {
                $0.status
            }
            #expect(encoded == .notFound)
            let nul = try await client.execute(uri: "/v1/accounts/no%00body", method: .get, headers: auth) { $0.status }
            #expect(nul == .badRequest)
        }
    }

    @Test(arguments: [
        ("/v1/receipts", HTTPRequest.Method.delete, "POST"), ("/v1/receipts/r-1", .post, "GET"),
        ("/v1/accounts/p/consumption-consent", .get, "PUT"), ("/v1/orders/o-1/cancel", .get, "POST"),
    ])
    func aKnownPathAskedWithAnotherMethodIs405WithAllow(_ path: String, _ method: HTTPRequest.Method, _ allow: String)
        async throws
    {
        try await withIntake { client, _ in
            let auth: HTTPFields = [.authorization: "Bearer \(Self.token)"]
            let response = try await client.execute(uri: path, method: method, headers: auth) { $0 }
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.allow] == allow)
            #expect(
                errorCode(
                    (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:])
                    == "method_not_allowed")
            // An unknown path stays a 404
            let unknown = try await client.execute(uri: "/v1/nothing-here", method: method, headers: auth) { $0.status }
            #expect(unknown == .notFound)
        }
    }

    @Test func receiptStatusIsReadable() async throws {
        try await withIntake { client, _ in
            let (_, body) = try await post(
                client,
                #"{"account_id": "p", "receipt_data": "\#(Self.receipt)", "product_id": "com.example.coins100"}"#)
            let id = try #require(body["receipt_id"] as? String)
            let auth: HTTPFields = [.authorization: "Bearer \(Self.token)"]
            let details = try await client.execute(uri: "/v1/receipts/\(id)", method: .get, headers: auth) { response in
                #expect(response.status == .ok)
                return try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            }
            #expect(details?["receipt_id"] as? String == id)
            #expect(details?["status"] as? String == "received")
            #expect(details?["product_id"] as? String == "com.example.coins100")
        }
    }
}
