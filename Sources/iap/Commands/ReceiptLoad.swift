import ArgumentParser
import Broker
import Foundation
import HTTPClient
import Logging
import Store
import StubStore
import Synchronization

/// What both pipeline benchmarks do to a running intake: mint receipts the stub store
/// vouches for, post them from many clients at once, wait until all are credited, report.
struct ReceiptLoad {
    let bodies: [[UInt8]]

    /// `count` receipt bodies of one 100-coin purchase each, over 1,000 accounts.
    init(count: Int, minter: StubAppStore, bundleID: String, transactionPrefix: String, accountPrefix: String) {
        bodies = (0..<count).map { index in
            let data = minter.issue(
                StubReceipt(
                    bundleID: bundleID,
                    transactions: [
                        StubReceipt.Transaction(
                            transactionID: "\(transactionPrefix)-\(index)", productID: "com.example.coins100")
                    ]))
            return Array(#"{"account_id": "\#(accountPrefix)-\#(index % 1000)", "receipt_data": "\#(data)"}"#.utf8)
        }
    }

    /// Posts every body with `clients` requests in flight; returns when all were answered 202.
    func post(to url: String, token: String, clients: Int) async throws {
        let client = try CurlHTTPClient(configuration: .init(maxConnections: clients, maxConnectionsPerHost: clients))
        let next = Cursor()
        do {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for _ in 0..<clients {
                    tasks.addTask {
                        while true {
                            let index = next.value.add(1, ordering: .relaxed).oldValue
                            guard index < bodies.count else { return }
                            let response = try await client.execute(
                                HTTPClient.HTTPRequest(
                                    method: .post, url: url,
                                    headers: [
                                        (name: "Authorization", value: "Bearer \(token)"),
                                        (name: "Content-Type", value: "application/json"),
                                    ],
                                    body: bodies[index]))
                            guard response.status == 202 else {
                                throw ValidationError("intake answered \(response.status)")
                            }
                        }
                    }
                }
                try await tasks.waitForAll()
            }
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    /// Waits until `database` counts `target` credited receipts.
    static func waitForCredits(_ target: Int, in database: PipelineDatabase, until deadline: ContinuousClock.Instant)
        async throws
    {
        while try await ReceiptStore(database).receiptStatusCounts()[.credited, default: 0] < target {
            guard ContinuousClock.now < deadline else { throw ValidationError("not all credited in time") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until no receipt in `database` is still `received`: the relay has published
    /// and marked every one (the intake-alone benchmark, where nothing validates them).
    static func waitUntilPublished(in database: PipelineDatabase, until deadline: ContinuousClock.Instant) async throws
    {
        while try await ReceiptStore(database).receiptStatusCounts()[.received, default: 0] > 0 {
            guard ContinuousClock.now < deadline else { throw ValidationError("not all published in time") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// `  accepted (202, durable)      1042 receipts/s  (4.80 s)`
    static func report(_ phase: String, receipts: Int, _ time: Duration) {
        let seconds = time.seconds
        print(
            "  \(phase.padding(toLength: 28, withPad: " ", startingAt: 0)) \(Int(Double(receipts) / seconds)) receipts/s  (\(String(format: "%.2f", seconds)) s)"
        )
    }

    /// Removes `topology`'s queues and exchanges over a connection that declares nothing.
    static func deleteTopology(_ topology: Topology, amqp: AMQPConfiguration) async {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let connection = AMQPConnection(configuration: amqp, logger: logger)
        connection.start()
        guard (try? await connection.waitUntilConnected()) != nil else { return await connection.close() }
        _ = try? await connection.withControlChannel { channel throws(BrokerError) in
            for queue in topology.queues { try? channel.deleteQueue(queue.name) }
            for exchange in topology.exchanges { try? channel.deleteExchange(exchange.name) }
        }
        await connection.close()
    }
}

/// The next body to post, shared by the clients.
private final class Cursor: Sendable {
    let value = Atomic<Int>(0)
}
