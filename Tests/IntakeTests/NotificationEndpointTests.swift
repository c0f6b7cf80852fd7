import AppStore
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
import StubStore
import Testing

@testable import Intake

/// `POST /v1/apple/notifications`: only what the App Store signed (under the configured
/// root) is stored, durably before 200 and once; anything else is 400 and stores nothing.
@Suite struct NotificationEndpointTests {
    /// A TEST notification signed by the stub store, whose root the intake trusts.
    static let jws = LiveIntake.apple.signNotification(type: .test, transaction: nil)

    func withIntake(_ body: @escaping @Sendable (any TestClientProtocol, SQLiteDatabase) async throws -> Void)
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        var configuration = IntakeConfiguration(apiTokens: ["test-token-0123456789"])
        configuration.stores = LiveIntake.stores
        let intake = Intake(
            configuration: configuration, database: database, catalog: Catalog(products: []),
            connection: AMQPConnection(configuration: AMQPConfiguration(), logger: Logger(label: "test")),
            topology: PipelineTopology(prefix: "unused"), logger: Logger(label: "test"))
        try await Application(router: intake.router()).test(.router) { client in try await body(client, database) }
    }

    /// `header.payload.signature`, each part base64url of the text given.
    static func forged(header: String, payload: String = #"{"notificationType":"TEST"}"#, signature: String = "sig")
        -> String
    {
        [header, payload, signature].map { text in
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }.joined(separator: ".")
    }

    func post(_ client: any TestClientProtocol, _ json: String, contentType: String = "application/json") async throws
        -> (HTTPResponse.Status, String)
    {
        try await client.execute(
            uri: "/v1/apple/notifications", method: .post, headers: [.contentType: contentType],
            body: ByteBuffer(string: json)
        ) { ($0.status, String(buffer: $0.body)) }
    }

    @Test func aSignedNotificationIsStoredBeforeThe200AndAppleRetriesAreOneRow() async throws {
        try await withIntake { client, database in
            // No bearer token: Apple sends none; the JWS signature is the credential
            let (first, firstBody) = try await post(client, #"{"signedPayload": "\#(Self.jws)"}"#)
            let (again, againBody) = try await post(client, #"{"signedPayload": "\#(Self.jws)"}"#)
            #expect(first == .ok)
            #expect(again == .ok)
            #expect(firstBody == againBody)
            let pending = try await IntakeRepository(database).unpublished(limit: 10)
            #expect(pending.count == 1)
            #expect(pending.first?.evidence == .notification(signedPayload: Self.jws))
        }
    }

    @Test func aNotificationAnEarlierReleaseStoredIsNotStoredAgain() async throws {
        try await withIntake { client, database in
            // Given Apple's notification as the release that kept it by its payload's hash stored it
            let stored = try await NotificationRepository(database).acceptNotification(
                id: "01a00000-0000-7000-8000-000000000001", app: "", payload: Self.jws,
                payloadHash: PayloadHash.notification(Self.jws), now: Date())
            // When Apple sends it again to Apple's plug-in route
            let (status, body) = try await post(client, #"{"signedPayload": "\#(Self.jws)"}"#)
            // Then it is the same notification, stored once
            #expect(status == .ok)
            #expect(body.contains(stored.id), "\(body)")
            let rows = try await database.snapshot { try await $0.rows("SELECT store FROM store_notifications") }
            #expect(rows.count == 1)
        }
    }

    /// Payloads no App Store signed: issue 25's forged header first.
    static let unsigned: [(String, String)] = {
        let other = try! StubStoreKit(bundleID: "com.example.game")
        let parts = jws.split(separator: ".").map(String.init)
        let otherPayload = other.signNotification(type: .test, transaction: nil).split(separator: ".")[1]
        let forgedHeader = #"{"alg":"ES256","x5c":["AAAA","AAAA","AAAA"]}"#
        return [
            ("forged x5c [AAAA, AAAA, AAAA]", Self.forged(header: forgedHeader)),
            (
                "forged x5c, 53 KiB",
                Self.forged(header: forgedHeader, payload: String(repeating: "x", count: 40 * 1024))
            ),
            ("signed under another root", other.signNotification(type: .test, transaction: nil)),
            ("our chain, another payload", [parts[0], String(otherPayload), parts[2]].joined(separator: ".")),
            ("our chain, no signature", [parts[0], parts[1], "AAAA"].joined(separator: ".")),
            ("alg none", Self.forged(header: #"{"alg":"none","x5c":["AAAA","AAAA","AAAA"]}"#)),
        ]
    }()

    @Test(arguments: unsigned)
    func aNotificationTheAppStoreDidNotSignIs400AndStoresNothing(name: String, jws: String) async throws {
        try await withIntake { client, database in
            let (status, body) = try await post(client, #"{"signedPayload": "\#(jws)"}"#)
            #expect(status == .badRequest, "\(name)")
            #expect(body.contains("invalid_signed_payload"), "\(name): \(body)")
            await #expect(try IntakeRepository(database).unpublished(limit: 10).isEmpty, "\(name)")
        }
    }

    @Test(arguments: [
        ("{broken", "invalid_json"),
        (#"{"payload": "x"}"#, "missing_field"),
        (#"{"signedPayload": 42}"#, "missing_field"),
        (#"{"signedPayload": "a.b"}"#, "invalid_signed_payload"),
        (#"{"signedPayload": "a.b.c.d"}"#, "invalid_signed_payload"),
        (#"{"signedPayload": "a.b$.c"}"#, "invalid_signed_payload"),
        (#"{"signedPayload": "\#(NotificationEndpointTests.jws)\u0000"}"#, "invalid_signed_payload"),
    ])
    func malformedBodyIs400AndStoresNothing(json: String, code: String) async throws {
        try await withIntake { client, database in
            let (status, body) = try await post(client, json)
            #expect(status == .badRequest)
            #expect(body.contains(code), "\(body)")
            await #expect(try IntakeRepository(database).unpublished(limit: 10).isEmpty)
        }
    }

    @Test func membersAppleMayAddAreNeitherReadNorStoredWhateverTheyHold() async throws {
        try await withIntake { client, database in
            let body = #"{"signedPayload": "\#(Self.jws)", "extra": "a\u0000b", "x\u0001": [{"y": "\u001b"}]}"#
            let (status, _) = try await post(client, body)
            #expect(status == .ok)
            let pending = try await IntakeRepository(database).unpublished(limit: 10)
            #expect(pending.map(\.evidence) == [.notification(signedPayload: Self.jws)])
        }
    }

    @Test func wrongContentTypeIs415() async throws {
        try await withIntake { client, _ in
            let (status, _) = try await post(client, #"{"signedPayload": "\#(Self.jws)"}"#, contentType: "text/plain")
            #expect(status == .unsupportedMediaType)
        }
    }
}
