import ArgumentParser
import Broker
import Foundation
import HTTPClient
import Intake
import Logging
import PipelineCore
import StubStore
import Synchronization

extension IAP.Bench {
    /// Drives a pipeline that runs as separate processes (see Benchmarks/scaling/run.sh):
    /// posts receipts to the intake and waits until the fulfiller has credited them all.
    struct LoadBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "load",
            abstract: "Receipts per second through running intake, validator and fulfiller processes (same IAP_* settings).",
            discussion: """
                Receipts are minted with the stub store's development signing key, so the verify
                endpoint must be an `iap stub-store` with the default key. Credits are read from
                IAP_DB_PATH. With --clean-up, the queues and exchanges of IAP_QUEUE_PREFIX are
                deleted afterwards (stop the processes first).
                """)

        @Option(help: "Receipts to submit.") var receipts = 2_000
        @Option(help: "HTTP requests in flight.") var clients = 64
        @Option(help: "Seconds to wait for the last credit.") var timeout = 600
        @Flag(help: "Only delete the topology of IAP_QUEUE_PREFIX, then exit.") var cleanUp = false

        func validate() throws {
            guard receipts > 0, clients > 0, timeout > 0 else { throw ValidationError("receipts, clients and timeout must be positive") }
        }

        func run() async throws {
            let settings = try PipelineSettings()
            if cleanUp { return try await deleteTopology(settings) }
            let intake = try IntakeConfiguration(environment: settings.environment)
            let database = try settings.openDatabase()
            let bundleID = settings.environment.string("IAP_BUNDLE_ID", default: "com.example.game")
            let minter = StubAppStore(configuration: StubStoreConfiguration(bundleID: bundleID))
            let run = UUID().uuidString.prefix(8).lowercased()
            let bodies = (0..<receipts).map { index -> [UInt8] in
                let data = minter.issue(
                    StubReceipt(
                        bundleID: bundleID,
                        transactions: [StubReceipt.Transaction(transactionID: "load-\(run)-\(index)", productID: "com.example.coins100")]))
                return Array(#"{"account_id": "load-\#(index % 1000)", "receipt_data": "\#(data)"}"#.utf8)
            }
            let before = try database.receiptStatusCounts()[.credited, default: 0]
            let url = "http://127.0.0.1:\(intake.port)/v1/receipts"
            let token = intake.apiTokens[0]
            let client = try CurlHTTPClient(configuration: .init(maxConnections: clients, maxConnectionsPerHost: clients))
            defer { Task { await client.shutdown() } }

            let start = ContinuousClock.now
            let next = Cursor()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for _ in 0..<clients {
                    tasks.addTask {
                        while true {
                            let index = next.value.add(1, ordering: .relaxed).oldValue
                            guard index < bodies.count else { return }
                            let response = try await client.execute(
                                HTTPClient.HTTPRequest(
                                    method: .post, url: url,
                                    headers: [(name: "Authorization", value: "Bearer \(token)"), (name: "Content-Type", value: "application/json")],
                                    body: bodies[index]))
                            guard response.status == 202 else { throw ValidationError("intake answered \(response.status)") }
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            let accepted = ContinuousClock.now - start
            let deadline = start + .seconds(timeout)
            while try database.receiptStatusCounts()[.credited, default: 0] < before + receipts {
                guard ContinuousClock.now < deadline else { throw ValidationError("not all credited after \(timeout) s") }
                try await Task.sleep(for: .milliseconds(20))
            }
            let credited = ContinuousClock.now - start
            print("load: \(receipts) receipts, \(clients) HTTP clients")
            print("  accepted (202, durable)      \(Int(Double(receipts) / accepted.seconds)) receipts/s  (\(String(format: "%.2f", accepted.seconds)) s)")
            print("  credited end to end          \(Int(Double(receipts) / credited.seconds)) receipts/s  (\(String(format: "%.2f", credited.seconds)) s)")
        }

        /// Removes the prefix's queues and exchanges; declares nothing.
        private func deleteTopology(_ settings: PipelineSettings) async throws {
            var logger = Logger(label: "bench")
            logger.logLevel = .error
            let connection = AMQPConnection(configuration: settings.amqp, logger: logger)
            connection.start()
            try await connection.waitUntilConnected()
            let topology = settings.topology.topology
            _ = try? await connection.withControlChannel { channel throws(Broker.BrokerError) in
                for queue in topology.queues { try? channel.deleteQueue(queue.name) }
                for exchange in topology.exchanges { try? channel.deleteExchange(exchange.name) }
            }
            await connection.close()
        }
    }
}

private final class Cursor: Sendable {
    let value = Atomic<Int>(0)
}
