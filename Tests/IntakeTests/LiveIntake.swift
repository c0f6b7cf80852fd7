import AppStore
import AppleStore
import Broker
import Database
import DatabaseSQLite
import Foundation
import GooglePlay
import Hummingbird
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StorePlugins
import StubStore

@testable import Intake

/// An intake serving on a real socket (port 0) against a fresh SQLite file, for tests that
/// need what only a socket shows: timeouts, headers, connection reuse. The relay does not
/// run, so what was committed stays countable.
struct LiveIntake {
    static let token = "live-token-0123456789"
    /// Signs Apple's notifications as the stub store does; every live intake trusts its root,
    /// as `iap up` trusts the embedded stub's.
    static let apple = try! StubStoreKit(bundleID: "com.example.game")

    /// The stores every test intake takes: Apple, its notifications signed under the stub's
    /// root, and Google Play's member.
    static let stores = StoreRegistry(
        known: [AppleStore.self, GooglePlayStore.self], configured: [appleStore, GooglePlayStore(setup: nil)])

    /// Apple as its defaults have it, but trusting the stub's root for notifications.
    static var appleStore: AppleStore {
        var setup = try! AppleSetup(environment: EnvironmentReader([:]))
        setup.notificationSignatures = try! SignedDataAuthenticator(rootCertificates: [apple.rootDER])
        return AppleStore(setup: setup)
    }

    let port: Int
    let database: SQLiteDatabase

    static func run(
        catalog: Catalog = Catalog(products: []), _ configure: (inout IntakeConfiguration) throws -> Void = { _ in },
        routes: @escaping @Sendable (Router<IntakeRequestContext>) -> Void = { _ in },
        _ body: @Sendable (LiveIntake) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        var configuration = IntakeConfiguration(port: 0, apiTokens: [token])
        configuration.stores = stores
        try configure(&configuration)
        var intake = Intake(
            configuration: configuration, database: database, catalog: catalog,
            connection: AMQPConnection(configuration: AMQPConfiguration(), logger: Logger(label: "test")),
            topology: PipelineTopology(prefix: "unused"), logger: Logger(label: "test"))
        intake.additionalRoutes = routes
        try await withRunningServer({ onPort in intake.application(onServerRunning: onPort) }) { port in
            try await body(LiveIntake(port: port, database: database))
        }
    }

    /// One request on a fresh connection: `Content-Length` is added for a body.
    func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil,
        token: String? = LiveIntake.token
    ) async throws -> RawHTTPConnection.Response? {
        let connection = try await RawHTTPConnection.connect(port: port)
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let token { text += "Authorization: Bearer \(token)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        try? await connection.send(text)
        let response = await connection.response()
        await connection.close()
        return response
    }

    /// A TEST notification the stub signed, new each time: `{"signedPayload": ...}`.
    static func signedNotificationBody() -> String {
        #"{"signedPayload": "\#(apple.signNotification(type: .test, transaction: nil))"}"#
    }

    /// The `error.code` of a JSON error answer.
    static func errorCode(_ response: RawHTTPConnection.Response?) -> String? {
        guard let data = response?.body.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return (object["error"] as? [String: Any])?["code"] as? String
    }
}
