import Broker
import Drills
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Testing

/// A broker that goes silent (its bytes lost, the connection not closed) is noticed by the
/// connection: the heartbeat (two missed intervals), checked by rabbitmq-c each time the
/// connection's loop reads, whether the connection is idle or awaits confirms. A relay on
/// loopback plays the silent broker (``LoopbackRelay/silence()``); this host's kernel still
/// acknowledges the bytes, so only the heartbeat can notice here (the kernel's own bound,
/// ``DeadPeer``, is the alone pass's partition drill's).
@Suite struct SilentPeerTests {
    static var logger: Logger {
        var logger = Logger(label: "silent-peer")
        logger.logLevel = .critical
        return logger
    }

    @Test func theSocketCarriesTheDeadPeerOptions() async throws {
        var configuration = BrokerFixture(label: "dead-peer").configuration
        configuration.deadPeer = DeadPeer(timeout: .seconds(7))
        let connection = AMQPConnection(configuration: configuration, logger: Self.logger)
        connection.start()
        try await connection.waitUntilConnected()
        // SO_KEEPALIVE on, the first probe after 3 s, then every second, 4 probes, 7,000 ms.
        #expect(connection.socketOptions == [1, 3, 1, 4, 7000])
        #expect(connection.socketOptions == configuration.deadPeer.expected)
        await connection.close()
    }

    @Test func anIdleConnectionNoticesASilentBrokerWithinTwoHeartbeats() async throws {
        // Given an idle connection through a relay, with a 1 s heartbeat
        let relay = try LoopbackRelay(address: "127.0.0.1", target: Self.brokerPort)
        defer { relay.close() }
        let connection = AMQPConnection(configuration: Self.configuration(through: relay), logger: Self.logger)
        connection.start()
        try await connection.waitUntilConnected()

        // When the broker goes silent
        relay.silence()
        let silenced = ContinuousClock.now
        let noticed = await eventually(timeout: .seconds(20), every: .milliseconds(20)) { !connection.isConnected }

        // Then the connection is given up within two heartbeats (and a turn of its loop)
        let took = ContinuousClock.now - silenced
        #expect(noticed)
        #expect(took < .seconds(6), "noticed after \(took)")
        print("silent broker, idle connection: noticed in \(took)")

        // And once the broker answers again, it connects again and works
        relay.resume()
        try await connection.waitUntilConnected(timeout: .seconds(30))
        #expect(connection.connectCount == 2)
        let queue = BrokerFixture(label: "silent").quorumQueue("q")
        try await connection.declare(queue)
        _ = try? await connection.withControlChannel { channel throws(BrokerError) in
            try channel.deleteQueue(queue.queues[0].name)
        }
        await connection.close()
    }

    @Test func publishesAwaitingConfirmsFailWhenTheBrokerGoesSilent() async throws {
        // Given a connection through a relay, publishing to a queue, and an RPC timeout far
        // longer than two heartbeats (so the confirms' own stall check is not what notices)
        let relay = try LoopbackRelay(address: "127.0.0.1", target: Self.brokerPort)
        defer { relay.close() }
        let broker = BrokerFixture(label: "silent-publish")
        let topology = broker.quorumQueue("q")
        var configuration = Self.configuration(through: relay)
        configuration.rpcTimeout = .seconds(30)
        let connection = AMQPConnection(configuration: configuration, topology: topology, logger: Self.logger)
        connection.start()
        try await connection.waitUntilConnected()
        let message = OutgoingMessage(exchange: "", routingKey: topology.queues[0].name, body: [1])
        #expect(await connection.publish([message, message]).allSatisfy { (try? $0.get()) != nil })

        // When the broker goes silent as a batch is published
        relay.silence()
        let silenced = ContinuousClock.now
        let results = await connection.publish(Array(repeating: message, count: 50))

        // Then the batch fails, unconfirmed (retryable), within two heartbeats and a turn
        let took = ContinuousClock.now - silenced
        #expect(results.allSatisfy { if case .failure(.unconfirmed) = $0 { true } else { false } }, "\(results[0])")
        #expect(took < .seconds(6), "failed after \(took)")
        print("silent broker, 50 confirms awaited: failed in \(took)")
        relay.resume()
        try await connection.waitUntilConnected(timeout: .seconds(30))
        await broker.cleanUp(topology, connection)
    }

    static var brokerPort: Int { BrokerFixture().configuration.nodes[0].port }

    /// The test broker's settings, at the relay, with a 1 s heartbeat and a 2 s handshake (a
    /// connect made while the relay is silent gives up soon).
    static func configuration(through relay: LoopbackRelay) -> AMQPConfiguration {
        var configuration = BrokerFixture(label: "silent").configuration
        configuration.nodes = [AMQPNode(host: relay.address, port: relay.port)]
        configuration.heartbeat = 1
        configuration.rpcTimeout = .seconds(2)
        return configuration
    }
}
