import Broker
import Foundation
import PipelineTesting
import Testing

@Suite struct PipelineTopologyTests {
    @Test func declaringTwiceIsIdempotent() async throws {
        let broker = BrokerFixture(label: "idem")
        let topology = broker.pipelineTopology().topology
        try await broker.withConnection(topology: topology) { connection in
            try await connection.declare(topology)
            for queue in topology.queues {
                #expect(try await connection.queueStatus(queue.name).messages == 0)
            }
        }
    }

    @Test func nackWithoutRequeueLandsInTheDeadLetterQueueWithXDeath() async throws {
        // Given a message on the validate queue
        let broker = BrokerFixture(label: "dlx")
        let pipeline = broker.pipelineTopology()
        try await broker.withConnection(topology: pipeline.topology) { connection in
            try await connection.publish(
                OutgoingMessage(
                    exchange: pipeline.workExchange, routingKey: PipelineTopology.validateKey,
                    body: Array("poison".utf8),
                    properties: MessageProperties(messageID: "r-dead")))

            // When a consumer nacks it without requeue
            for try await delivery in connection.consume(queue: pipeline.validateQueue, prefetch: 1) {
                delivery.nack(requeue: false)
                break
            }

            // Then it is in the dead-letter queue, with the reason and origin in x-death
            for try await dead in connection.consume(queue: pipeline.deadQueue, prefetch: 1) {
                #expect(dead.properties.messageID == "r-dead")
                #expect(dead.body == Array("poison".utf8))
                let death = try #require(dead.deaths.first)
                #expect(death.reason == "rejected")
                #expect(death.queue == pipeline.validateQueue)
                dead.ack()
                break
            }
        }
    }

    @Test func messageOnARetryTierComesBackToTheWorkQueueAfterItsDelay() async throws {
        // Given a one-second retry tier
        let broker = BrokerFixture(label: "retry")
        let pipeline = broker.pipelineTopology(retryDelays: [.seconds(1)])
        try await broker.withConnection(topology: pipeline.topology) { connection in
            let tier = pipeline.retryTier(afterAttempt: 1)
            let start = ContinuousClock.now

            // When a message is published to it
            try await connection.publish(
                OutgoingMessage(
                    exchange: "", routingKey: tier.queue, body: Array("again".utf8),
                    properties: MessageProperties(messageID: "r-retry", headers: ["x-iap-attempts": 1])))

            // Then it arrives on the validate queue after the delay, headers intact
            for try await delivery in connection.consume(queue: pipeline.validateQueue, prefetch: 1) {
                let waited = ContinuousClock.now - start
                #expect(waited >= .milliseconds(900))
                #expect(delivery.properties.messageID == "r-retry")
                #expect(delivery.properties.headers["x-iap-attempts"] == 1)
                #expect(delivery.deaths.first?.reason == "expired")
                #expect(delivery.deaths.first?.queue == tier.queue)
                delivery.ack()
                break
            }
        }
    }

    @Test func poisonMessageRequeuedPastTheDeliveryLimitIsDeadLettered() async throws {
        // Given a work queue that allows two redeliveries
        let broker = BrokerFixture(label: "limit")
        let pipeline = broker.pipelineTopology(deliveryLimit: 2)
        try await broker.withConnection(topology: pipeline.topology) { connection in
            try await connection.publish(
                OutgoingMessage(
                    exchange: pipeline.workExchange, routingKey: PipelineTopology.validateKey, body: [0xFF],
                    properties: MessageProperties(messageID: "r-poison")))

            // When every consumer gives it back (as a crashing worker would)
            let consumer = connection.consume(queue: pipeline.validateQueue, prefetch: 1)
            let dead = Task { () -> Delivery? in
                for try await dead in connection.consume(queue: pipeline.deadQueue, prefetch: 1) {
                    dead.ack()
                    return dead
                }
                return nil
            }
            let watcher = Task {
                var deliveries = 0
                for try await delivery in consumer {
                    deliveries += 1
                    delivery.nack(requeue: true)
                }
                return deliveries
            }

            // Then the queue dead-letters it with reason delivery_limit
            let letter = try await #require(dead.value)
            consumer.cancel()
            #expect(try await watcher.value == 3)
            #expect(letter.properties.messageID == "r-poison")
            #expect(letter.deaths.first?.reason == "delivery_limit")
        }
    }

    @Test func retryTiersAreChosenByAttempt() {
        let pipeline = PipelineTopology(prefix: "iap")
        #expect(pipeline.retryTier(afterAttempt: 1).queue == "iap.validate.retry.1s")
        #expect(pipeline.retryTier(afterAttempt: 2).queue == "iap.validate.retry.10s")
        #expect(pipeline.retryTier(afterAttempt: 3).queue == "iap.validate.retry.1m")
        #expect(pipeline.retryTier(afterAttempt: 4).queue == "iap.validate.retry.10m")
        #expect(pipeline.retryTier(afterAttempt: 5).queue == "iap.validate.retry.1h")
        #expect(pipeline.retryTier(afterAttempt: 40).delay == .seconds(3600))
    }
}
