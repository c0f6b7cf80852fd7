import Broker
import Foundation
import PipelineTesting
import Synchronization
import Testing

/// Restarts the shared broker, so it runs alone: `scripts/test.sh` runs it in a pass of
/// its own with `IAP_TEST_ALONE=1`.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct DisruptiveBrokerRecoveryTests {
    @Test func publisherAndConsumerRecoverFromABrokerRestartWithoutLosingConfirmedMessages() async throws {
        // Given a publisher and a consumer on separate connections
        let broker = BrokerFixture(label: "restart")
        let topology = broker.quorumQueue("q")
        let queue = topology.queues[0].name
        let publisher = try await broker.connect(topology: topology, label: "publisher")
        let consumerConnection = try await broker.connect(topology: topology, label: "consumer")
        let consumed = Mutex<Set<Int>>([])
        let consumerTask = Task {
            for try await delivery in consumerConnection.consume(queue: queue, prefetch: 100) {
                if let id = Int(String(decoding: delivery.body, as: UTF8.self)) {
                    consumed.withLock { _ = $0.insert(id) }
                }
                delivery.ack()
            }
        }

        // When the broker restarts while messages are being published
        let total = 3_000
        let restart = Task.detached {
            try await Task.sleep(for: .milliseconds(300))
            try await Rabbitmqctl.run("stop_app")
            try await Task.sleep(for: .seconds(1))
            try await Rabbitmqctl.run("start_app")
        }
        var confirmed = Set<Int>()
        var retries = 0
        for id in 0..<total {
            let message = OutgoingMessage(exchange: "", routingKey: queue, body: Array(String(id).utf8))
            while true {
                do {
                    try await publisher.publish(message)
                    confirmed.insert(id)
                    break
                } catch {
                    guard error.isRetryable else { throw error }
                    retries += 1
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            if id % 100 == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        try await restart.value

        // Then both reconnected on their own and every confirmed message was consumed
        let allConsumed = await eventually(timeout: .seconds(60)) {
            consumed.withLock { confirmed.isSubset(of: $0) }
        }
        #expect(allConsumed)
        #expect(publisher.connectCount >= 2)
        #expect(consumerConnection.connectCount >= 2)
        #expect(retries > 0, "the restart should have interrupted publishing")
        consumerTask.cancel()
        await broker.cleanUp(topology, publisher)
        await consumerConnection.close()
    }
}
