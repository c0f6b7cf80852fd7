import Broker
import Foundation
import Logging
import PipelineTesting
import Synchronization
import Testing

/// A publisher and a consumer given the three nodes of a real cluster (scripts/cluster-rabbitmq.sh)
/// lose the node they are on mid-stream and carry on through another: every confirmed message
/// is consumed. It builds network namespaces and three brokers, so it runs in the alone pass.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"),
    .enabled(
        if: RabbitMQCluster.unavailableReason == nil,
        "skipped: the 3-node cluster needs root, `ip netns` (iproute2) and rabbitmq-server on this machine"),
    .rabbitMQCluster)
struct AloneBrokerClusterTests {
    @Test func aStreamCarriesOnThroughAnotherNodeWhenItsNodeIsKilled() async throws {
        let cluster = try #require(RabbitMQCluster.current)
        let report = try await Self.stream(cluster, startingOn: 1) { try await cluster.kill($0) }
        #expect(report.lost.isEmpty, "confirmed but never consumed: \(report.lost.sorted().prefix(20))")
        // Node 1 back, so that the next test has three nodes again.
        try await cluster.start(1)
        #expect(await cluster.awaitWhole(from: 2))
    }

    @Test func aStreamCarriesOnThroughAnotherNodeWhenItsNodesAppIsStopped() async throws {
        let cluster = try #require(RabbitMQCluster.current)
        let report = try await Self.stream(cluster, startingOn: 2) { try await cluster.stopApp($0) }
        #expect(report.lost.isEmpty, "confirmed but never consumed: \(report.lost.sorted().prefix(20))")
        try await cluster.startApp(2)
        #expect(await cluster.awaitWhole(from: 3))
    }

    struct Report {
        /// Messages the broker confirmed that the consumer never received.
        var lost: Set<Int>
    }

    /// Publishes a stream of numbered messages through a connection given every node (node
    /// `first` first) while another consumes them, applies `fault` to the node both are on
    /// once part of the stream is confirmed, and finishes the stream.
    static func stream(
        _ cluster: RabbitMQCluster, startingOn first: Int, fault: @escaping @Sendable (Int) async throws -> Void
    ) async throws -> Report {
        let queue = "test.cluster.\(UUID().uuidString.prefix(8).lowercased())"
        let topology = Topology(
            exchanges: [],
            queues: [QueueSpec(name: queue, arguments: ["x-queue-type": "quorum", "x-quorum-initial-group-size": 3])],
            bindings: [])
        var configuration = try AMQPConfiguration(url: cluster.url(order: [first] + [1, 2, 3].filter { $0 != first }))
        configuration.reconnectDelay = cluster.configuration.reconnectDelay
        var logger = Logger(label: "cluster-test")
        logger.logLevel = .warning
        let publisher = AMQPConnection(configuration: configuration, topology: topology, logger: logger)
        let consumerConnection = AMQPConnection(configuration: configuration, topology: topology, logger: logger)
        publisher.start()
        consumerConnection.start()
        do {
            let report = try await stream(
                queue, from: publisher, to: consumerConnection, cluster: cluster, first: first, fault: fault)
            await publisher.close()
            await consumerConnection.close()
            return report
        } catch {
            await publisher.close()
            await consumerConnection.close()
            throw error
        }
    }

    private static func stream(
        _ queue: String, from publisher: AMQPConnection, to consumerConnection: AMQPConnection,
        cluster: RabbitMQCluster, first: Int, fault: @escaping @Sendable (Int) async throws -> Void
    ) async throws -> Report {
        try await publisher.waitUntilConnected(timeout: .seconds(60))
        try await consumerConnection.waitUntilConnected(timeout: .seconds(60))
        // Both on the first node of their list, the queue replicated on all three.
        #expect(publisher.connectedNode == cluster.node(first))
        #expect(consumerConnection.connectedNode == cluster.node(first))
        #expect(try await cluster.members(of: queue, from: first).members.count == 3)

        let consumed = Mutex<Set<Int>>([])
        let consumer = Task {
            for try await delivery in consumerConnection.consume(queue: queue, prefetch: 50) {
                if let id = Int(String(decoding: delivery.body, as: UTF8.self)) {
                    consumed.withLock { _ = $0.insert(id) }
                }
                delivery.ack()
            }
        }
        defer { consumer.cancel() }

        // The fault comes once 1,000 messages are confirmed, and the stream goes on until
        // 1,000 more are confirmed after it is done, so that both must move to go on.
        let faultAt = 1_000
        let confirmedCount = Atomic<Int>(0)
        /// Messages confirmed when the fault was done; "never" until then.
        let faultDoneAt = Atomic<Int>(Int.max / 2)
        let faulted = Task.detached {
            while confirmedCount.load(ordering: .relaxed) < faultAt { try await Task.sleep(for: .milliseconds(10)) }
            try await fault(first)
            faultDoneAt.store(confirmedCount.load(ordering: .relaxed), ordering: .relaxed)
        }
        var confirmed = Set<Int>()
        var retried = 0
        var next = 0
        while confirmed.count < faultDoneAt.load(ordering: .relaxed) + 1_000 {
            var pending = Array(next..<next + 20)
            next += 20
            while !pending.isEmpty {
                let messages = pending.map {
                    OutgoingMessage(exchange: "", routingKey: queue, body: Array(String($0).utf8))
                }
                let results = await publisher.publish(messages)
                var failed: [Int] = []
                for (id, result) in zip(pending, results) {
                    switch result {
                    case .success: confirmed.insert(id)
                    case .failure(let error) where error.isRetryable: failed.append(id)
                    case .failure(let error): throw error
                    }
                }
                retried += failed.count
                pending = failed
                // Wait out a reconnect (or a leader election) instead of spinning on it.
                if !failed.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
            }
            confirmedCount.store(confirmed.count, ordering: .relaxed)
        }
        try await faulted.value

        _ = await eventually(timeout: .seconds(120), every: .milliseconds(200)) {
            consumed.withLock { confirmed.isSubset(of: $0) }
        }
        let lost = confirmed.subtracting(consumed.withLock { $0 })
        // The stream went on through another node: both moved off the node at fault.
        #expect(confirmed.count == next, "every message published was confirmed in the end")
        #expect(publisher.connectCount >= 2 && consumerConnection.connectCount >= 2)
        #expect(publisher.connectedNode != cluster.node(first))
        #expect(consumerConnection.connectedNode != cluster.node(first))
        print("cluster stream, fault on node \(first): \(next) confirmed, \(retried) publishes retried")
        return Report(lost: lost)
    }
}
