import AppStore
import AppleStore
import DatabaseSQLite
import Foundation
import Intake
import Logging
import Notifier
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Pipeline
import PipelineCore
import PipelineTesting
import ServiceLifecycle
import StubStore
import Testing

/// The pipeline in this process (intake, validator, fulfiller) on a fresh SQLite file and
/// the real broker, with the stub store as Apple, and the client generated from
/// docs/openapi.yaml pointed at its intake: what a backend that generated its client talks to.
struct ClientPipeline: Sendable {
    static let token = "generated-client-token-0123456789"
    static let bundleID = "com.example.game"
    static let catalog = Catalog(products: [
        Product(productID: "com.example.coins100", kind: .consumable, grant: Grant(currency: "coins", amount: 100))
    ])

    /// The generated client, sending the backend's token.
    let client: Client
    let stub: StubAppStore

    /// Mints a legacy app receipt of one transaction that the stub store vouches for.
    func receipt(transaction: String, product: String = "com.example.coins100") -> String {
        stub.issue(
            StubReceipt(
                bundleID: Self.bundleID,
                transactions: [StubReceipt.Transaction(transactionID: transaction, productID: product)]))
    }

    /// Runs `body` against a fresh pipeline, then shuts it down gracefully and deletes its queues.
    static func run(_ body: (ClientPipeline) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let broker = BrokerFixture(label: "client")
        let topology = broker.pipelineTopology()
        let stub = StubAppStore(configuration: StubStoreConfiguration(bundleID: bundleID))
        var logger = Logger(label: "generated-client")
        logger.logLevel = .warning

        let stubPort = BoundPort()
        let stubServer = RunningService(makeStubStoreApplication(store: stub, port: 0) { await stubPort.set($0) })
        let stubURL = "http://127.0.0.1:\(await stubPort.value)"
        let intakePort = BoundPort()
        let pipeline = try LocalPipeline(
            configuration: LocalPipeline.Configuration(
                amqp: broker.configuration, topology: topology, catalog: catalog,
                intake: IntakeConfiguration(port: 0, apiTokens: [token]),
                stores: PluginStores.unconfigured.with(
                    AppleStore(
                        setup: AppleSetup(
                            verifyReceipt: .init(
                                bundleID: bundleID, productionURL: "\(stubURL)/verifyReceipt",
                                sandboxURL: "\(stubURL)/sandbox/verifyReceipt")))),
                notifier: .init(webhookURL: nil, secret: WebhookSecret.generate())),
            database: database, logger: logger, onIntakeRunning: { await intakePort.set($0) })
        let services = ServiceGroup(
            configuration: .init(services: pipeline.services.map { .init(service: $0) }, logger: logger))

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            let serverURL = try #require(URL(string: "http://127.0.0.1:\(await intakePort.value)"))
            let client = Client(
                serverURL: serverURL,
                // The API's timestamps carry milliseconds (`Timestamp` in the spec).
                configuration: Configuration(dateTranscoder: .iso8601WithFractionalSeconds),
                transport: AsyncHTTPClientTransport(), middlewares: [BearerToken(token: token)])
            var failure: (any Error)?
            do {
                try await body(ClientPipeline(client: client, stub: stub))
            } catch {
                failure = error
            }
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            await stubServer.stop()
            if let failure { throw failure }
        }
        let cleaner = try await broker.connect()
        await broker.cleanUp(topology.topology, cleaner)
    }
}
