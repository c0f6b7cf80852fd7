import Broker
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PipelineCore
import PipelineTesting
import Store
import StoreSQLite
import Testing

@testable import Intake

/// `POST /v1/apple/notifications`: durable before 200, deduped, malformed bodies get 400.
@Suite struct NotificationEndpointTests {
    /// The header Apple's carry (ES256, an x5c of three certificates); the signature is the validator's to check.
    static let jws =
        "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJBQUFBIiwiQkJCQiIsIkNDQ0MiXX0.eyJub3RpZmljYXRpb25UeXBlIjoiVEVTVCJ9.c2lnbmF0dXJl"

    func withIntake(_ body: @escaping @Sendable (any TestClientProtocol, SQLiteDatabase) async throws -> Void)
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let intake = Intake(
            configuration: IntakeConfiguration(apiTokens: ["test-token-0123456789"]), database: database,
            catalog: Catalog(products: []),
            connection: AMQPConnection(configuration: AMQPConfiguration(), logger: Logger(label: "test")),
            topology: PipelineTopology(prefix: "unused"), logger: Logger(label: "test"))
        try await Application(router: intake.router()).test(.router) { client in try await body(client, database) }
    }

    func post(_ client: any TestClientProtocol, _ json: String, contentType: String = "application/json") async throws
        -> (HTTPResponse.Status, String)
    {
        try await client.execute(
            uri: "/v1/apple/notifications", method: .post, headers: [.contentType: contentType],
            body: ByteBuffer(string: json)
        ) { ($0.status, String(buffer: $0.body)) }
    }

    @Test func notificationIsStoredBeforeThe200AndAppleRetriesAreOneRow() async throws {
        try await withIntake { client, database in
            // No bearer token: Apple sends none; the JWS is verified by the validator
            let (first, firstBody) = try await post(client, #"{"signedPayload": "\#(Self.jws)"}"#)
            let (again, againBody) = try await post(client, #"{"signedPayload": "\#(Self.jws)"}"#)
            #expect(first == .ok)
            #expect(again == .ok)
            #expect(firstBody == againBody)
            let pending = try await database.unpublishedReceipts(limit: 10)
            #expect(pending.count == 1)
            #expect(pending.first?.evidence == .notification(signedPayload: Self.jws))
        }
    }

    @Test(arguments: [
        ("{broken", "invalid_json"),
        (#"{"payload": "x"}"#, "missing_field"),
        (#"{"signedPayload": 42}"#, "missing_field"),
        (#"{"signedPayload": "a.b"}"#, "invalid_signed_payload"),
        (#"{"signedPayload": "a.b.c.d"}"#, "invalid_signed_payload"),
        (#"{"signedPayload": "a.b$.c"}"#, "invalid_signed_payload"),
    ])
    func malformedBodyIs400AndStoresNothing(json: String, code: String) async throws {
        try await withIntake { client, database in
            let (status, body) = try await post(client, json)
            #expect(status == .badRequest)
            #expect(body.contains(code))
            await #expect(try database.unpublishedReceipts(limit: 10).isEmpty)
        }
    }

    @Test func wrongContentTypeIs415() async throws {
        try await withIntake { client, _ in
            let (status, _) = try await post(client, #"{"signedPayload": "\#(Self.jws)"}"#, contentType: "text/plain")
            #expect(status == .unsupportedMediaType)
        }
    }
}
