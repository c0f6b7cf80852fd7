import Broker
import Foundation
import Logging
import PipelineTesting
import Testing

/// A connection whose publishes go unacked for the RPC timeout starts afresh: RabbitMQ 3.10
/// can nack a channel's publishes for good after a quorum queue's leader died under it.
@Suite struct ConfirmStallTests {
    @Test func publishesNackedForTheRPCTimeoutMakeTheConnectionStartAfresh() async throws {
        // Given a queue that refuses publishes (no room, reject-publish: a quorum queue takes one
        // message over its limit first), and a short RPC timeout
        let broker = BrokerFixture(label: "stall")
        let queue = "\(broker.prefix).full"
        let topology = Topology(
            exchanges: [],
            queues: [
                QueueSpec(
                    name: queue,
                    arguments: ["x-queue-type": "quorum", "x-max-length": 0, "x-overflow": "reject-publish"])
            ], bindings: [])
        var configuration = broker.configuration
        configuration.rpcTimeout = .milliseconds(500)
        var logger = Logger(label: "stall")
        logger.logLevel = .error
        let connection = AMQPConnection(configuration: configuration, topology: topology, logger: logger)
        connection.start()
        try await connection.waitUntilConnected(timeout: .seconds(30))

        // When a publisher retries its nacked publish on and on
        let message = OutgoingMessage(exchange: "", routingKey: queue, body: [1])
        let reconnected = await eventually(timeout: .seconds(30), every: .milliseconds(50)) {
            do {
                try await connection.publish(message)
            } catch {
                #expect((error as? PublishError)?.isRetryable == true, "\(error)")
            }
            return connection.connectCount >= 2
        }

        // Then the connection was given up and made again
        #expect(reconnected)
        await broker.cleanUp(topology, connection)
    }

    @Test func anIdleConnectionAfterAcksIsKept() async throws {
        // Given publishes that were acked, then nothing for several RPC timeouts
        let broker = BrokerFixture(label: "idle")
        let topology = broker.quorumQueue("q")
        var configuration = broker.configuration
        configuration.rpcTimeout = .milliseconds(300)
        let connection = AMQPConnection(configuration: configuration, topology: topology, logger: Logger(label: "idle"))
        connection.start()
        try await connection.waitUntilConnected(timeout: .seconds(30))
        for _ in 0..<5 {
            try await connection.publish(OutgoingMessage(exchange: "", routingKey: topology.queues[0].name, body: [1]))
        }
        try await Task.sleep(for: .seconds(1))

        // Then it is the same connection
        #expect(connection.connectCount == 1)
        await broker.cleanUp(topology, connection)
    }
}
