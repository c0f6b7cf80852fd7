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

@Suite struct BrokerNodeListTests {
    @Test func aListWhereNoNodeAnswersIsRetriedRoundAfterRoundWithoutCrashing() async throws {
        // Given three nodes where no broker listens
        var configuration = try AMQPConfiguration(
            url: "amqp://guest:guest@127.0.0.1:1/,amqp://guest:guest@127.0.0.1:2/,amqp://guest:guest@127.0.0.1:3/")
        configuration.reconnectDelay = .milliseconds(20) ... .milliseconds(100)
        let connection = AMQPConnection(configuration: configuration, logger: Logger(label: "test"))

        // When it starts
        connection.start()
        try await Task.sleep(for: .milliseconds(400))

        // Then it keeps trying, publishes fail as retryable, and it closes promptly
        #expect(!connection.isConnected && connection.connectedNode == nil)
        await #expect(throws: PublishError.notConnected) {
            try await connection.publish(OutgoingMessage(exchange: "", routingKey: "q", body: [1]))
        }
        await connection.close()
    }

    @Test func aNodeThatDoesNotAnswerIsPassedOverForTheNextInTheList() async throws {
        // Given a list whose first node is down and whose second is the test broker
        let broker = BrokerFixture(label: "list")
        let live = try #require(broker.configuration.nodes.first)
        var configuration = try AMQPConfiguration(url: "amqp://guest:guest@127.0.0.1:1/,\(broker.url)")
        configuration.reconnectDelay = broker.configuration.reconnectDelay
        let connection = AMQPConnection(configuration: configuration, logger: Logger(label: "test"))

        // When it starts
        connection.start()

        // Then it connects to the second, and stays there
        try await connection.waitUntilConnected(timeout: .seconds(10))
        #expect(connection.connectedNode == live)
        #expect(connection.connectCount == 1)
        await connection.close()
    }
}
