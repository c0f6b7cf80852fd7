import Broker
import Foundation
import PipelineTesting
import Synchronization
import Testing

@Suite struct PublishConsumeTests {
    @Test func tenThousandConfirmedMessagesAreConsumedExactlyOnce() async throws {
        // Given a quorum queue and 10,000 messages published with confirms
        let broker = BrokerFixture(label: "tenk")
        let topology = broker.quorumQueue("q")
        let queue = topology.queues[0].name
        try await broker.withConnection(topology: topology) { connection in
            let count = 10_000
            let messages = (0..<count).map { index in
                OutgoingMessage(
                    exchange: "", routingKey: queue, body: Array("message \(index)".utf8),
                    properties: MessageProperties(messageID: "m\(index)"))
            }
            var confirmed = 0
            for batch in stride(from: 0, to: count, by: 1000) {
                let results = await connection.publish(Array(messages[batch..<min(batch + 1000, count)]))
                confirmed += results.filter { (try? $0.get()) != nil }.count
            }
            #expect(confirmed == count)

            // When one consumer acks each delivery
            var seen = Set<String>()
            var deliveries = 0
            let consumer = connection.consume(queue: queue, prefetch: 500)
            for try await delivery in consumer {
                deliveries += 1
                seen.insert(delivery.properties.messageID ?? "")
                #expect(!delivery.redelivered)
                delivery.ack()
                if deliveries == count { break }
            }

            // Then each message arrived once and the queue is empty
            #expect(deliveries == count)
            #expect(seen.count == count)
            let drained = await eventually(timeout: .seconds(30)) {
                (try? await connection.queueStatus(queue).messages) == 0
            }
            #expect(drained)
        }
    }

    @Test func unackedDeliveriesGoToAnotherConsumerWhenTheFirstDisconnects() async throws {
        // Given ten messages taken by a consumer that never acks
        let broker = BrokerFixture(label: "redeliver")
        let topology = broker.quorumQueue("q")
        let queue = topology.queues[0].name
        let first = try await broker.connect(topology: topology)
        let messages = (0..<10).map {
            OutgoingMessage(
                exchange: "", routingKey: queue, body: [UInt8($0)], properties: MessageProperties(messageID: "m\($0)"))
        }
        #expect(await first.publish(messages).allSatisfy { (try? $0.get()) != nil })
        var taken = 0
        for try await delivery in first.consume(queue: queue, prefetch: 20) {
            #expect(!delivery.redelivered)
            taken += 1
            if taken == 10 { break }
        }

        // When it disconnects
        await first.close()

        // Then another consumer receives all ten, marked as redelivered
        try await broker.withConnection(topology: topology) { second in
            var ids = Set<String>()
            for try await delivery in second.consume(queue: queue, prefetch: 20) {
                #expect(delivery.redelivered)
                ids.insert(delivery.properties.messageID ?? "")
                delivery.ack()
                if ids.count == 10 { break }
            }
            #expect(ids == Set((0..<10).map { "m\($0)" }))
        }
    }

    @Test func unroutableMandatoryPublishIsReportedAsReturned() async throws {
        let broker = BrokerFixture(label: "mandatory")
        let topology = broker.pipelineTopology().topology
        try await broker.withConnection(topology: topology) { connection in
            // Given an exchange with no binding for the routing key
            let message = OutgoingMessage(exchange: "\(broker.prefix).work", routingKey: "nowhere", body: [1])

            // When it is published as mandatory, then the caller sees a return, not success
            await #expect(throws: PublishError.returned(code: 312, text: "NO_ROUTE")) {
                try await connection.publish(message)
            }

            // And a routable publish right after still succeeds
            try await connection.publish(
                OutgoingMessage(exchange: "\(broker.prefix).work", routingKey: PipelineTopology.validateKey, body: [2]))
        }
    }

    @Test func publishToMissingExchangeFailsAndTheChannelRecovers() async throws {
        let broker = BrokerFixture(label: "noexchange")
        let topology = broker.quorumQueue("q")
        try await broker.withConnection(topology: topology) { connection in
            do {
                try await connection.publish(
                    OutgoingMessage(exchange: "\(broker.prefix).missing", routingKey: "x", body: [1]))
                Issue.record("publish to a missing exchange was confirmed")
            } catch let error as PublishError {
                #expect(error.isRetryable)
            }
            try await connection.publish(OutgoingMessage(exchange: "", routingKey: topology.queues[0].name, body: [2]))
        }
    }

    @Test func consumingAMissingQueueEndsTheSequenceWithTheBrokersReason() async throws {
        let broker = BrokerFixture(label: "noqueue")
        try await broker.withConnection { connection in
            await #expect(throws: BrokerError.self) {
                for try await _ in connection.consume(queue: "\(broker.prefix).missing", prefetch: 1) {}
            }
            #expect(connection.isConnected)
        }
    }

    @Test func messagePropertiesAndHeadersRoundTrip() async throws {
        let broker = BrokerFixture(label: "props")
        let topology = broker.quorumQueue("q")
        try await broker.withConnection(topology: topology) { connection in
            let headers: [String: AMQPValue] = [
                "x-attempts": 3, "x-reason": "timeout", "x-flag": true, "x-list": .array(["a", 1]),
                "x-table": .table(["k": "v"]),
            ]
            let sent = MessageProperties(
                contentType: "application/json", messageID: "r-1", correlationID: "c-1", type: "submission",
                timestamp: Date(timeIntervalSince1970: 1_700_000_000), headers: headers)
            try await connection.publish(
                OutgoingMessage(
                    exchange: "", routingKey: topology.queues[0].name, body: Array("{}".utf8), properties: sent))
            for try await delivery in connection.consume(queue: topology.queues[0].name, prefetch: 1) {
                #expect(delivery.properties.messageID == "r-1")
                #expect(delivery.properties.correlationID == "c-1")
                #expect(delivery.properties.type == "submission")
                #expect(delivery.properties.persistent)
                #expect(delivery.properties.timestamp == sent.timestamp)
                for (key, value) in headers { #expect(delivery.properties.headers[key] == value) }
                #expect(delivery.body == Array("{}".utf8))
                delivery.ack()
                break
            }
        }
    }
}
