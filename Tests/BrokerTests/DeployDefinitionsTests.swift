import Broker
import Foundation
import Logging
import PipelineTesting
import Testing

/// A broker that loaded deploy/rabbitmq/definitions.json at boot must accept the pipeline's
/// own declarations: the processes declare ``PipelineTopology`` at every connect, and a
/// queue that exists with other arguments fails that declare (PRECONDITION_FAILED), so a
/// stale definitions file would stop every stage. These tests hold the file to the code.
@Suite struct DeployDefinitionsTests {
    /// The default topology, as `iap` declares it with `IAP_QUEUE_PREFIX` unset.
    static var pipeline: Topology { PipelineTopology(prefix: "iap").topology }

    @Test func definitionsDeclareExactlyThePipelineTopologyWithTheSameArguments() throws {
        // Given the definitions file and the code's topology
        let definitions = try DeployDefinitions.load()
        let file = definitions.topology

        // Then they name the same exchanges, queues (each with equal arguments) and bindings
        #expect(Set(file.exchanges) == Set(Self.pipeline.exchanges))
        let fileQueues = Dictionary(file.queues.map { ($0.name, $0.arguments) }) { first, _ in first }
        #expect(fileQueues.count == file.queues.count, "a queue is defined twice")
        #expect(fileQueues.keys.sorted() == Self.pipeline.queues.map(\.name).sorted())
        for queue in Self.pipeline.queues {
            #expect(fileQueues[queue.name] == queue.arguments, "arguments of \(queue.name)")
        }
        #expect(Set(file.bindings) == Set(Self.pipeline.bindings))
        // And everything is durable, in the default vhost, as the processes declare it
        #expect(definitions.exchanges.allSatisfy { $0.durable && !$0.autoDelete && !$0.internal && $0.vhost == "/" })
        #expect(definitions.queues.allSatisfy { $0.durable && !$0.autoDelete && $0.vhost == "/" })
        #expect(definitions.bindings.allSatisfy { $0.destinationType == "queue" && $0.vhost == "/" })
    }

    @Test func pipelineDeclaresItsTopologyOnABrokerThatImportedTheDefinitions() async throws {
        // Given a fresh vhost of the local broker that imported the definitions
        let broker = BrokerFixture(label: "defs")
        let vhost = "iap-defs-\(UUID().uuidString.prefix(8).lowercased())"
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("\(vhost).json")
        try DeployDefinitions.copy(intoVhost: vhost).write(to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        try await Rabbitmqctl.run("import_definitions", copy.path)
        do {
            try await declareAndRoute(broker: broker, vhost: vhost)
        } catch {
            try? await Rabbitmqctl.run("delete_vhost", vhost)
            throw error
        }
        try await Rabbitmqctl.run("delete_vhost", vhost)
    }

    private func declareAndRoute(broker: BrokerFixture, vhost: String) async throws {
        try await Rabbitmqctl.run("set_permissions", "-p", vhost, broker.configuration.user, ".*", ".*", ".*")
        var configuration = broker.configuration
        configuration.vhost = vhost
        var logger = Logger(label: "deploy-definitions")
        logger.logLevel = .warning
        let connection = AMQPConnection(configuration: configuration, logger: logger)
        connection.start()
        do {
            try await declareAndRoute(on: connection)
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
    }

    private func declareAndRoute(on connection: AMQPConnection) async throws {
        try await connection.waitUntilConnected(timeout: .seconds(30))

        // When the pipeline declares its topology there, as every stage does at connect
        try await connection.declare(Self.pipeline)

        // Then nothing conflicted, and the imported bindings route work to its queues
        for key in [PipelineTopology.validateKey, PipelineTopology.fulfilKey] {
            try await connection.publish(
                OutgoingMessage(
                    exchange: "iap.work", routingKey: key, body: Array(key.utf8), properties: MessageProperties()))
        }
        #expect(try await connection.queueStatus("iap.validate").messages == 1)
        #expect(try await connection.queueStatus("iap.fulfil").messages == 1)

        // And a declaration that differs from the file is refused, so a drift cannot pass
        let drifted = Topology(
            exchanges: [], queues: [QueueSpec(name: "iap.validate", arguments: ["x-queue-type": "quorum"])],
            bindings: [])
        await #expect(throws: BrokerError.self) { try await connection.declare(drifted) }
    }
}
