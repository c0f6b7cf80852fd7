import Broker
import Foundation
import Logging

/// A real RabbitMQ for tests: loopback by default, `IAP_TEST_AMQP_URL` to point elsewhere.
/// Every fixture gets its own queue prefix, so tests run side by side on one broker.
public struct BrokerFixture: Sendable {
    public let configuration: AMQPConfiguration
    /// The broker's URL, for processes started by a test.
    public let url: String
    public let prefix: String

    public init(label: String = "t") {
        let url = ProcessInfo.processInfo.environment["IAP_TEST_AMQP_URL"] ?? AMQPConfiguration.defaultURL
        self.url = url
        var configuration = try! AMQPConfiguration(url: url)
        configuration.reconnectDelay = .milliseconds(50) ... .seconds(1)
        self.configuration = configuration
        self.prefix = "test.\(label).\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// The pipeline topology under this fixture's prefix.
    public func pipelineTopology(retryDelays: [Duration] = [.seconds(1), .seconds(2)], deliveryLimit: Int = 20)
        -> PipelineTopology
    {
        PipelineTopology(prefix: prefix, retryDelays: retryDelays, deliveryLimit: deliveryLimit)
    }

    /// A started connection that is up, declaring `topology`.
    public func connect(topology: Topology = .empty, label: String = "test") async throws -> AMQPConnection {
        var logger = Logger(label: "broker-fixture.\(label)")
        logger.logLevel = .warning
        let connection = AMQPConnection(configuration: configuration, topology: topology, logger: logger)
        connection.start()
        try await connection.waitUntilConnected(timeout: .seconds(30))
        return connection
    }

    /// Runs `body` with a connection, then deletes the topology's queues and exchanges.
    public func withConnection<T>(
        topology: Topology = .empty, _ body: (AMQPConnection) async throws -> T
    ) async throws -> T {
        let connection = try await connect(topology: topology)
        do {
            let result = try await body(connection)
            await cleanUp(topology, connection)
            return result
        } catch {
            await cleanUp(topology, connection)
            throw error
        }
    }

    /// Deletes what a test declared; best effort, since the broker may be mid-restart.
    public func cleanUp(_ topology: Topology, _ connection: AMQPConnection) async {
        _ = try? await connection.withControlChannel { channel throws(BrokerError) in
            for queue in topology.queues { try? channel.deleteQueue(queue.name) }
            for exchange in topology.exchanges { try? channel.deleteExchange(exchange.name) }
        }
        await connection.close()
    }

    /// A topology of one quorum queue named `{prefix}.{name}`.
    public func quorumQueue(_ name: String) -> Topology {
        Topology(
            exchanges: [], queues: [QueueSpec(name: "\(prefix).\(name)", arguments: ["x-queue-type": "quorum"])],
            bindings: [])
    }
}
