import Broker
import Logging
import PipelineTesting
import Testing

@Suite struct HeartbeatTests {
    @Test func idleConnectionWithOneSecondHeartbeatsStaysUp() async throws {
        // Given a connection that negotiates a 1 s heartbeat (the broker drops peers silent for 2)
        var broker = BrokerFixture(label: "heartbeat").configuration
        broker.heartbeat = 1
        let connection = AMQPConnection(configuration: broker, logger: Logger(label: "test"))
        connection.start()
        try await connection.waitUntilConnected()

        // When nothing is sent for five intervals
        try await Task.sleep(for: .seconds(5))

        // Then the loop kept heartbeating: same connection, still usable
        #expect(connection.isConnected)
        #expect(connection.connectCount == 1)
        let queue = BrokerFixture(label: "heartbeat").quorumQueue("q")
        try await connection.declare(queue)
        #expect(try await connection.queueStatus(queue.queues[0].name).messages == 0)
        _ = try? await connection.withControlChannel { channel throws(BrokerError) in
            try channel.deleteQueue(queue.queues[0].name)
        }
        await connection.close()
    }
}
