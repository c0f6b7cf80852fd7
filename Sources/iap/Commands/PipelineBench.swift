import AppStore
import ArgumentParser
import Broker
import Foundation
import HTTPClient
import Intake
import Logging
import Notifier
import Pipeline
import PipelineCore
import ServiceLifecycle
import Store
import StubStore
import Synchronization

extension IAP.Bench {
    /// Receipts per second through every stage, in one process, against the stub store.
    struct PipelineBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pipeline",
            abstract: "Receipts per second end to end: HTTP intake, broker, validator, fulfiller (stub store, no latency).")

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
            let database = try PipelineDatabase(path: directory + "/iap.sqlite")
            let prefix = "\(settings.queuePrefix).bench.\(UUID().uuidString.prefix(8).lowercased())"
            let topology = PipelineTopology(prefix: prefix)
            let stub = StubAppStore(configuration: StubStoreConfiguration(bundleID: "com.example.game", latency: .milliseconds(latencyMs)))
            let token = "bench-token-0123456789"
            let ports = PortBox()
            let stubApp = makeStubStoreApplication(store: stub, port: 0) { ports.set(stub: $0) }
            let stubRunning = Task { try await stubApp.runService() }
            let stubPort = await ports.stubPort()
            let configuration = LocalPipeline.Configuration(
                amqp: settings.amqp, topology: topology, catalog: SampleCatalog.catalog,
                intake: IntakeConfiguration(port: 0, apiTokens: [token]),
                verifier: .init(
                    bundleID: "com.example.game", productionURL: "http://127.0.0.1:\(stubPort)/verifyReceipt",
                    sandboxURL: "http://127.0.0.1:\(stubPort)/sandbox/verifyReceipt"),
                validator: .init(concurrency: concurrency),
                notifier: .init(webhookURL: nil, secret: WebhookSecret.generate()))
            let pipeline = try LocalPipeline(configuration: configuration, database: database, logger: logger) {
                ports.set(intake: $0)
            }
            let group = ServiceGroup(configuration: .init(services: pipeline.services.map { .init(service: $0) }, logger: logger))
            let running = Task { try await group.run() }
            let intakeURL = "http://127.0.0.1:\(await ports.intakePort())/v1/receipts"

            let bodies = (0..<receipts).map { index -> [UInt8] in
                let data = stub.issue(
                    StubReceipt(
                        bundleID: "com.example.game",
                        transactions: [StubReceipt.Transaction(transactionID: "bench-\(index)", productID: "com.example.coins100")]))
                return Array(#"{"account_id": "player-\#(index % 1000)", "receipt_data": "\#(data)"}"#.utf8)
            }
            print("pipeline benchmark: \(receipts) receipts, \(clients) HTTP clients, validator concurrency \(concurrency), stub latency \(latencyMs) ms")
            let client = try CurlHTTPClient(configuration: .init(maxConnections: clients, maxConnectionsPerHost: clients))
            let start = ContinuousClock.now
            let next = Counter()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for _ in 0..<clients {
                    tasks.addTask {
                        while true {
                            let index = next.value.add(1, ordering: .relaxed).oldValue
                            guard index < bodies.count else { return }
                            let response = try await client.execute(
                                HTTPClient.HTTPRequest(
                                    method: .post, url: intakeURL,
                                    headers: [(name: "Authorization", value: "Bearer \(token)"), (name: "Content-Type", value: "application/json")],
                                    body: bodies[index]))
                            guard response.status == 202 else { throw ValidationError("intake answered \(response.status)") }
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            let accepted = ContinuousClock.now - start
            while try database.receiptStatusCounts()[.credited, default: 0] < receipts {
                try await Task.sleep(for: .milliseconds(20))
            }
            let credited = ContinuousClock.now - start
            report("accepted (202, durable)", accepted)
            report("credited end to end", credited)

            await group.triggerGracefulShutdown()
            _ = await running.result
            stubRunning.cancel()
            await client.shutdown()
            // Declares nothing: it only removes the benchmark's own queues.
            let connection = AMQPConnection(configuration: settings.amqp, logger: logger)
            connection.start()
            try? await connection.waitUntilConnected()
            _ = try? await connection.withControlChannel { channel throws(Broker.BrokerError) in
                for queue in topology.topology.queues { try? channel.deleteQueue(queue.name) }
                for exchange in topology.topology.exchanges { try? channel.deleteExchange(exchange.name) }
            }
            await connection.close()
        }

        private func report(_ phase: String, _ time: Duration) {
            let seconds = time.seconds
            print("  \(phase.padding(toLength: 28, withPad: " ", startingAt: 0)) \(Int(Double(receipts) / seconds)) receipts/s  (\(String(format: "%.2f", seconds)) s)")
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

private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
