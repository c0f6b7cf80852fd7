import Broker
import Logging
import PipelineTesting
import Testing

@Suite struct BrokerUnavailableTests {
    @Test func brokerDownAtStartIsRetriedAndPublishesFailRetryably() async throws {
        // Given a URL where no broker listens
        var configuration = try AMQPConfiguration(url: "amqp://guest:guest@127.0.0.1:1/")
        configuration.reconnectDelay = .milliseconds(20) ... .milliseconds(100)
        let connection = AMQPConnection(configuration: configuration, logger: Logger(label: "test"))

        // When it starts
        connection.start()
        try await Task.sleep(for: .milliseconds(300))

        // Then it keeps trying without crashing, and publishes fail as retryable
        #expect(!connection.isConnected)
        #expect(connection.connectCount == 0)
        do {
            try await connection.publish(OutgoingMessage(exchange: "", routingKey: "q", body: [1]))
            Issue.record("publish succeeded without a broker")
        } catch {
            #expect(error == .notConnected)
            #expect(error.isRetryable)
        }
        await #expect(throws: BrokerError.self) { try await connection.waitUntilConnected(timeout: .milliseconds(100)) }

        // And it closes promptly
        await connection.close()
    }
}
