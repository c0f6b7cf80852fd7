import AppStore
import AppleStore
import ArgumentParser
import Broker
import Database
import DatabaseSQLite
import Foundation
import IAPCommands
import Intake
import Logging
import Notifier
import Pipeline
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter
import StubStore
import Synchronization

extension Lab.Bench {
    /// Receipts per second through every stage, in one process, against the stub store.
    struct PipelineBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pipeline",
            abstract:
                "Receipts per second end to end: HTTP intake, broker, validator, fulfiller (stub store, no latency).")

        @Option(help: "Receipts to submit.") var receipts = 5_000
        @Option(help: "HTTP requests in flight.") var clients = 64
        @Option(help: "Verify requests in flight in the validator.") var concurrency = 256
        @Option(help: "Stub store latency in milliseconds.") var latencyMs = 0

        func validate() throws {
            guard receipts > 0, clients > 0, concurrency > 0, latencyMs >= 0 else {
                throw ValidationError("receipts, clients and concurrency must be positive")
            }
        }

        func run() async throws {
            let settings = try PipelineSettings()
            var logger = Logger(label: "bench")
            logger.logLevel = .error
            let directory = NSTemporaryDirectory() + "iap-bench-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let database = try SQLiteDatabase(path: directory + "/iap.sqlite")
            let prefix = "\(settings.queuePrefix).bench.\(UUID().uuidString.prefix(8).lowercased())"
            let topology = PipelineTopology(prefix: prefix)
            let stub = StubAppStore(
                configuration: StubStoreConfiguration(bundleID: "com.example.game", latency: .milliseconds(latencyMs)))
            let token = "bench-token-0123456789"
            let ports = PortBox()
            let stubApp = makeStubStoreApplication(store: stub, port: 0) { ports.set(stub: $0) }
            let stubRunning = Task { try await stubApp.runService() }
            let stubPort = await ports.stubPort()
            let configuration = LocalPipeline.Configuration(
                amqp: settings.amqp, topology: topology, catalog: SampleCatalog.catalog,
                intake: IntakeConfiguration(port: 0, apiTokens: [token]),
                stores: PluginStores.unconfigured.with(
                    AppleStore(
                        setup: AppleSetup(
                            verifyReceipt: .init(
                                bundleID: "com.example.game",
                                productionURL: "http://127.0.0.1:\(stubPort)/verifyReceipt",
                                sandboxURL: "http://127.0.0.1:\(stubPort)/sandbox/verifyReceipt")))),
                validator: .init(concurrency: concurrency),
                notifier: .init(webhookURL: nil, secret: WebhookSecret.generate()))
            let pipeline = try LocalPipeline(configuration: configuration, database: database, logger: logger) {
                ports.set(intake: $0)
            }
            let group = ServiceGroup(
                configuration: .init(services: pipeline.services.map { .init(service: $0) }, logger: logger))
            let running = Task { try await group.run() }
            let intakeURL = "http://127.0.0.1:\(await ports.intakePort())/v1/receipts"

            let load = ReceiptLoad(
                count: receipts, minter: stub, bundleID: "com.example.game", transactionPrefix: "bench",
                accountPrefix: "player")
            print(
                "pipeline benchmark: \(receipts) receipts, \(clients) HTTP clients, validator concurrency \(concurrency), stub latency \(latencyMs) ms"
            )
            let start = ContinuousClock.now
            try await load.post(to: intakeURL, token: token, clients: clients)
            let accepted = ContinuousClock.now - start
            try await ReceiptLoad.waitForCredits(receipts, in: database, until: .now + .seconds(3600))
            let credited = ContinuousClock.now - start
            ReceiptLoad.report("accepted (202, durable)", receipts: receipts, accepted)
            ReceiptLoad.report("credited end to end", receipts: receipts, credited)
            // The books after the run, as `iap audit` reads them.
            let findings = try await LedgerRepository(database).audit()
            print("  audit                        \(findings.isEmpty ? "clean" : "\(findings.count) findings")")

            await group.triggerGracefulShutdown()
            _ = await running.result
            stubRunning.cancel()
            // Declares nothing: it only removes the benchmark's own queues.
            await ReceiptLoad.deleteTopology(topology.topology, amqp: settings.amqp)
        }
    }
}

/// The ports the benchmark's servers bound, learned once each.
private final class PortBox: Sendable {
    private let ports = Mutex<(stub: Int?, intake: Int?)>((nil, nil))
    func set(stub port: Int) { ports.withLock { $0.stub = port } }
    func set(intake port: Int) { ports.withLock { $0.intake = port } }
    func stubPort() async -> Int { await wait { $0.stub } }
    func intakePort() async -> Int { await wait { $0.intake } }
    private func wait(_ pick: @Sendable ((stub: Int?, intake: Int?)) -> Int?) async -> Int {
        while true {
            if let port = ports.withLock({ pick($0) }) { return port }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
