import Broker
import Foundation
import PipelineTesting
import Testing

@Suite struct BatchConsumerTests {
    @Test func deliveriesLandInTheBufferAndACancelFinishesIt() async throws {
        // Given twenty messages and a consumer that takes them in batches
        let broker = BrokerFixture(label: "batchconsumer")
        let topology = broker.quorumQueue("q")
        let queue = topology.queues[0].name
        let connection = try await broker.connect(topology: topology)
        let messages = numberedMessages(to: queue, count: 20)
        #expect(await connection.publish(messages).allSatisfy { (try? $0.get()) != nil })
        let consumer = connection.consumeInBatches(queue: queue, prefetch: 50)

        // When it takes batches until it has all twenty, acks them with one multiple ack and cancels
        var ids: [String] = []
        while ids.count < 20, let batch = try await consumer.deliveries.next(max: 8) {
            #expect(batch.count <= 8)
            ids += batch.map { $0.properties.messageID ?? "" }
            if ids.count == 20 { batch.last?.ack(multiple: true) }
        }
        consumer.cancel()

        // Then each arrived once, in order, and the buffer finishes with nothing more
        #expect(ids == (0..<20).map { "m\($0)" })
        #expect(try await consumer.deliveries.next(max: 8) == nil)
        await connection.close()
        // And the acks reached the broker: nothing came back to the queue when the connection closed
        try await broker.withConnection(topology: topology) { second in
            let status = try await second.queueStatus(queue)
            #expect(status.messages == 0)
        }
    }
}
