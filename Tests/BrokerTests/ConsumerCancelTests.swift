import Broker
import Foundation
import PipelineTesting
import Testing

/// Cancelling a consumer: what it already received can still be settled, and nothing
/// routed to it in the meantime is stranded.
@Suite struct ConsumerCancelTests {
    func publish(_ count: Int, to queue: String, _ connection: AMQPConnection, prefix: String) async {
        let messages = (0..<count).map {
            OutgoingMessage(
                exchange: "", routingKey: queue, body: [1], properties: MessageProperties(messageID: "\(prefix)\($0)"))
        }
        #expect(await connection.publish(messages).allSatisfy { (try? $0.get()) != nil })
    }

    @Test func deliveryReceivedBeforeCancelCanBeAckedAfterTheConsumerEnded() async throws {
        // Given a delivery held by a consumer (as a validator holds one on graceful shutdown)
        let broker = BrokerFixture(label: "cancelack")
        let topology = broker.quorumQueue("q")
        let queue = topology.queues[0].name
        let connection = try await broker.connect(topology: topology)
        await publish(1, to: queue, connection, prefix: "m")
        let consumer = connection.consume(queue: queue, prefetch: 1)
        var held: Delivery?
        for try await delivery in consumer {
            held = delivery
            break
        }

        // When the consumer is cancelled, its sequence ends, and only then the delivery is acked
        consumer.cancel()
        for try await _ in consumer {}
        try #require(held).ack()

        // Then the ack counted: closing the connection requeues nothing
        await connection.close()
        try await broker.withConnection(topology: topology) { check in
            let remaining = try await check.queueStatus(queue).messages
            #expect(remaining == 0)
        }
    }

    @Test func messagesRoutedToACancelledConsumerGoToTheNextOne() async throws {
        let broker = BrokerFixture(label: "cancelroute")
        let topology = broker.quorumQueue("q")
        let queue = topology.queues[0].name
        try await broker.withConnection(topology: topology) { connection in
            // Given a consumer that is cancelled while messages keep arriving
            let first = connection.consume(queue: queue, prefetch: 50)
            await publish(1, to: queue, connection, prefix: "warmup")
            for try await delivery in first {
                delivery.ack()
                break
            }
            first.cancel()
            await publish(500, to: queue, connection, prefix: "m")

            // Then a new consumer on the same connection receives every one of them
            var ids = Set<String>()
            for try await delivery in connection.consume(queue: queue, prefetch: 100) {
                ids.insert(delivery.properties.messageID ?? "")
                delivery.ack()
                if ids.count == 500 { break }
            }
            #expect(ids.count == 500)
            let drained = await eventually { (try? await connection.queueStatus(queue).messages) == 0 }
            #expect(drained)
        }
    }
}
