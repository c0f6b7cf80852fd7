import Broker
import Foundation
import Logging
import PipelineTesting
import Testing

/// `publish(_:thenAck:)` acks on the connection's thread with the last confirm, and acks
/// wait up to the linger to go out together: nothing acked before its successor is safe,
/// nothing acked lost.
@Suite struct AckOnConfirmTests {
    @Test func aDeliveryHandedOnIsAckedWithItsConfirmAndNotRedelivered() async throws {
        // Given ten messages on queue a, taken by a consumer whose acks linger a long time
        let broker = BrokerFixture(label: "ackconfirm")
        let source = broker.quorumQueue("a")
        let target = broker.quorumQueue("b")
        let topology = Topology(exchanges: [], queues: source.queues + target.queues, bindings: [])
        let (a, b) = (source.queues[0].name, target.queues[0].name)
        let first = try await connect(broker, topology: topology, ackLinger: .seconds(30))
        #expect(await first.publish(numberedMessages(to: a, count: 10)).allSatisfy { (try? $0.get()) != nil })

        // When each is handed on to queue b with `thenAck`, and the connection closes
        var handedOn = 0
        for try await delivery in first.consume(queue: a, prefetch: 20) {
            let copy = OutgoingMessage(
                exchange: "", routingKey: b, body: delivery.body, properties: delivery.properties)
            let results = await first.publish([copy], thenAck: delivery)
            #expect(results.allSatisfy { (try? $0.get()) != nil })
            handedOn += 1
            if handedOn == 10 { break }
        }
        await first.close()

        // Then queue a is empty (the close sent the lingering acks) and b holds all ten
        try await broker.withConnection(topology: topology) { second in
            let (left, arrived) = (try await second.queueStatus(a), try await second.queueStatus(b))
            #expect(left.messages == 0)
            #expect(arrived.messages == 10)
        }
    }

    @Test func aDeliveryWhosePublishFailsIsLeftUnsettled() async throws {
        // Given a message taken from queue a
        let broker = BrokerFixture(label: "ackconfirmfail")
        let topology = broker.quorumQueue("a")
        let a = topology.queues[0].name
        try await broker.withConnection(topology: topology) { connection in
            #expect(await connection.publish(numberedMessages(to: a, count: 1)).allSatisfy { (try? $0.get()) != nil })
            let consumer = connection.consume(queue: a, prefetch: 1)
            var iterator = consumer.makeAsyncIterator()
            let delivery = try #require(try await iterator.next())

            // When it is handed on to a queue that does not exist (a mandatory message comes back)
            let lost = OutgoingMessage(exchange: "", routingKey: "\(broker.prefix).nowhere", body: delivery.body)
            let results = await connection.publish([lost], thenAck: delivery)

            // Then the publish failed, the delivery is still the caller's to settle, and a
            // requeue brings it back
            #expect(results.allSatisfy { (try? $0.get()) == nil })
            delivery.nack(requeue: true)
            let again = try #require(try await iterator.next())
            #expect(again.redelivered)
            again.ack()
            consumer.cancel()
        }
    }

    @Test func lingeringAcksGoOutWithoutAClose() async throws {
        // Given ten messages and a consumer allowed five unacked, whose acks linger 50 ms
        let broker = BrokerFixture(label: "acklinger")
        let topology = broker.quorumQueue("a")
        let a = topology.queues[0].name
        let connection = try await connect(broker, topology: topology, ackLinger: .milliseconds(50))
        #expect(await connection.publish(numberedMessages(to: a, count: 10)).allSatisfy { (try? $0.get()) != nil })

        // When it acks every delivery, the connection staying open
        var acked = 0
        for try await delivery in connection.consume(queue: a, prefetch: 5) {
            delivery.ack()
            acked += 1
            if acked == 10 { break }
        }

        // Then all ten arrived: the broker sent the second five only once the first five's
        // acks reached it
        #expect(acked == 10)
        await broker.cleanUp(topology, connection)
    }

    private func connect(_ broker: BrokerFixture, topology: Topology, ackLinger: Duration) async throws
        -> AMQPConnection
    {
        var configuration = broker.configuration
        configuration.ackLinger = ackLinger
        var logger = Logger(label: "ack-on-confirm")
        logger.logLevel = .warning
        let connection = AMQPConnection(configuration: configuration, topology: topology, logger: logger)
        connection.start()
        try await connection.waitUntilConnected()
        return connection
    }
}

/// `count` small messages to `queue`, with ids m0, m1, ...
func numberedMessages(to queue: String, count: Int) -> [OutgoingMessage] {
    (0..<count).map {
        OutgoingMessage(
            exchange: "", routingKey: queue, body: [UInt8($0)], properties: MessageProperties(messageID: "m\($0)"))
    }
}
