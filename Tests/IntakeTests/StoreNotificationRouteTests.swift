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
import StorePlugins
import Testing

@testable import Intake

/// `POST /v1/<store>/notifications`: what a plug-in store accepted is stored once per the
/// store's own id for it, however long that id is.
@Suite struct StoreNotificationRouteTests {
    /// A store whose notifications are their own id, taken as they come.
    struct EchoStore: StorePlugin {
        static let id = "echo"
        static let appsFileSection = AppsFileSection("echo", members: [:])
        static let variablePrefixes = ["IAP_ECHO_"]

        init() {}
        init?(environment: EnvironmentReader) throws(SettingError) { nil }

        var takesNotifications: Bool { true }

        func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification {
            let id = String(decoding: request.body, as: UTF8.self)
            return InboundNotification(
                messageID: id,
                evidence: StoreEvidence(
                    store: Self.id, kind: "notification", payload: StoreInput.canonicalJSON(["id": id])))
        }

        func verifier(_ context: StoreContext) throws -> any ReceiptVerifier { throw CancellationError() }
    }

    /// A store that posts `text/plain` and reads its own one-word answers (as Amazon's SNS
    /// posts, and as Xiaomi reads `errcode`), each notice its own id.
    struct PlainStore: StorePlugin {
        static let id = "plain"
        static let appsFileSection = AppsFileSection("plain", members: [:])
        static let variablePrefixes = ["IAP_PLAIN_"]

        init() {}
        init?(environment: EnvironmentReader) throws(SettingError) { nil }

        var takesNotifications: Bool { true }
        var notificationRoute: NotificationRoute { NotificationRoute(contentTypes: ["text/plain"]) }

        func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification {
            var read = try await EchoStore().notification(request)
            read.evidence.store = Self.id
            // A message about no purchase (SNS's subscription confirmation) is only acknowledged.
            if read.messageID.hasPrefix("confirm") { read.proof = .acknowledgement }
            return read
        }

        func reply(to outcome: NotificationOutcome) -> NotificationReply? {
            switch outcome {
            case .stored, .dropped: NotificationReply(status: 200, contentType: "text/plain", body: "OK")
            case .acknowledged: NotificationReply(status: 200, contentType: "text/plain", body: "ACK")
            case .refused(let status, let code, _, _):
                NotificationReply(status: status, contentType: "text/plain", body: "NO \(code)")
            }
        }

        func verifier(_ context: StoreContext) throws -> any ReceiptVerifier { throw CancellationError() }
    }

    func withIntake(
        stores: StoreRegistry = StoreRegistry(known: [EchoStore.self], configured: [EchoStore()]),
        _ body: @escaping @Sendable (any TestClientProtocol, SQLiteDatabase) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        var configuration = IntakeConfiguration(apiTokens: ["test-token-0123456789"])
        configuration.stores = stores
        let intake = Intake(
            configuration: configuration, database: database, catalog: Catalog(products: []),
            connection: AMQPConnection(configuration: AMQPConfiguration(), logger: Logger(label: "test")),
            topology: PipelineTopology(prefix: "unused"), logger: Logger(label: "test"))
        try await Application(router: intake.router()).test(.router) { client in try await body(client, database) }
    }

    func post(_ client: any TestClientProtocol, _ id: String) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(
            uri: "/v1/echo/notifications", method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(string: id)
        ) { ($0.status, String(buffer: $0.body)) }
    }

    @Test func anIdLongerThanTheColumnTakesIsStoredOnceNotAnsweredUnavailable() async throws {
        try await withIntake { client, database in
            // Stripe's ids may be 255 characters: with the store's name, more than message_id's 128
            let long = String(repeating: "0", count: 255)
            let (first, firstBody) = try await post(client, long)
            #expect(first == .ok, "\(firstBody)")
            let (again, againBody) = try await post(client, long)
            #expect(again == .ok && againBody == firstBody, "the store's retry finds the first row: \(againBody)")
            let (other, otherBody) = try await post(client, String(repeating: "0", count: 254) + "1")
            #expect(other == .ok && otherBody != firstBody, "another id is another row")
            let (short, _) = try await post(client, "evt_1")
            #expect(short == .ok)
            let list: String? = try await database.transaction { db in
                try await db.value(
                    "SELECT group_concat(message_id, ' ') FROM (SELECT message_id FROM store_notifications ORDER BY 1)")
            }
            let keys = (list ?? "").split(separator: " ").map(String.init)
            #expect(keys.count == 3 && keys.contains("echo:evt_1"), "\(keys)")
            #expect(keys.allSatisfy { $0.count <= NotificationRoutes.maxMessageKey })
        }
    }

    @Test func aStoreDeclaresItsRoutesMediaTypeAndIsAnsweredInItsOwnWords() async throws {
        let plain = StoreRegistry(known: [PlainStore.self], configured: [PlainStore()])
        try await withIntake(stores: plain) { client, database in
            func push(_ type: String, _ id: String) async throws -> (HTTPResponse.Status, String, String?) {
                try await client.execute(
                    uri: "/v1/plain/notifications", method: .post, headers: [.contentType: type],
                    body: ByteBuffer(string: id)
                ) { ($0.status, String(buffer: $0.body), $0.headers[.contentType]) }
            }
            // Another media type is refused before the plug-in reads it, in the store's words
            let (refused, refusal, refusalType) = try await push("application/json", "sns-1")
            #expect(refused == .unsupportedMediaType && refusal == "NO unsupported_media_type")
            #expect(refusalType == "text/plain")
            let none: Int? = try await database.transaction { db in
                try await db.value("SELECT COUNT(*) FROM store_notifications")
            }
            #expect(none == 0)
            // Its own type, with a parameter, is stored once and answered as the store reads it
            let (stored, answer, _) = try await push("text/plain; charset=UTF-8", "sns-1")
            #expect(stored == .ok && answer == "OK")
            let (again, _, _) = try await push("Text/Plain", "sns-1")
            #expect(again == .ok)
            let keys: String? = try await database.transaction { db in
                try await db.value("SELECT group_concat(message_id, ' ') FROM store_notifications")
            }
            #expect(keys == "plain:sns-1")
            // A message the plug-in only acknowledges is answered so, and stored nowhere
            let (acknowledged, ack, _) = try await push("text/plain", "confirm-1")
            #expect(acknowledged == .ok && ack == "ACK")
            let rows: Int? = try await database.transaction { db in
                try await db.value("SELECT COUNT(*) FROM store_notifications")
            }
            #expect(rows == 1)
            // A GET is not its method
            let get = try await client.execute(uri: "/v1/plain/notifications", method: .get) { $0.status }
            #expect(get == .methodNotAllowed)
        }
    }

    @Test func aKeyIsTheIdWhileItFitsAndADigestBeyond() {
        let fits = String(repeating: "e", count: 128 - "stripe:".count)
        #expect(NotificationRoutes.messageKey(fits, store: "stripe") == fits)
        let key = NotificationRoutes.messageKey(fits + "e", store: "stripe")
        #expect(key.hasPrefix("sha256:") && key.count == 71)
        #expect(NotificationRoutes.messageKey(fits + "e", store: "stripe") == key)
    }
}
