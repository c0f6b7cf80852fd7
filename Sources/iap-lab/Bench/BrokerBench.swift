import ArgumentParser
import Broker
import Foundation
import IAPCommands
import Logging

extension Lab.Bench {
    /// Publish-with-confirms and consume-with-ack through one quorum queue.
    struct BrokerBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "broker",
            abstract:
                "Messages per second through one quorum queue: confirmed publishes, acked consumes, and both at once."
        )

        @Option(help: "Messages per phase.") var messages = 100_000
        @Option(help: "Body size in bytes.") var size = 1024
        @Option(help: "Messages per publish batch.") var batch = 250
        @Option(help: "Publish batches in flight at once.") var batches = 8
        @Option(help: "Consumer prefetch.") var prefetch = 1000

        func validate() throws {
            guard messages > 0, size >= 0, batch > 0, batches > 0, (1...65535).contains(prefetch) else {
                throw ValidationError("messages, batch, batches must be positive; prefetch 1...65535")
            }
        }

        func run() async throws {
            let settings = try PipelineSettings()
            var logger = Logger(label: "bench")
            logger.logLevel = .warning
            let queue = "\(settings.queuePrefix).bench.\(UUID().uuidString.prefix(8).lowercased())"
            let topology = Topology(
                exchanges: [], queues: [QueueSpec(name: queue, arguments: ["x-queue-type": "quorum"])], bindings: [])
            let publisher = AMQPConnection(configuration: settings.amqp, topology: topology, logger: logger)
            let consumer = AMQPConnection(configuration: settings.amqp, topology: topology, logger: logger)
            publisher.start()
            consumer.start()
            try await publisher.waitUntilConnected()
            try await consumer.waitUntilConnected()
            let body = [UInt8](repeating: 0x61, count: size)
            print(
                "broker benchmark: \(messages) persistent messages of \(size) B, quorum queue, "
                    + "\(batch)×\(batches) publishes in flight, prefetch \(prefetch)")

            let publishTime = try await publishAll(publisher, queue: queue, body: body)
            report("publish, confirmed", publishTime)
            let consumeTime = try await consumeAll(consumer, queue: queue)
            report("consume, acked", consumeTime)
            let start = ContinuousClock.now
            async let published = publishAll(publisher, queue: queue, body: body)
            async let consumed = consumeAll(consumer, queue: queue)
            _ = try await (published, consumed)
            report("publish + consume at once (one hop)", ContinuousClock.now - start)

            _ = try? await publisher.withControlChannel { channel throws(BrokerError) in try channel.deleteQueue(queue)
            }
            await publisher.close()
            await consumer.close()
        }

        private func publishAll(_ connection: AMQPConnection, queue: String, body: [UInt8]) async throws -> Duration {
            let message = OutgoingMessage(exchange: "", routingKey: queue, body: body)
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                let batchesTotal = (messages + batch - 1) / batch
                for lane in 0..<batches {
                    group.addTask {
                        for index in stride(from: lane, to: batchesTotal, by: batches) {
                            let count = min(batch, messages - index * batch)
                            let results = await connection.publish(Array(repeating: message, count: count))
                            for result in results { try result.get() }
                        }
                    }
                }
                try await group.waitForAll()
            }
            return ContinuousClock.now - start
        }

        private func consumeAll(_ connection: AMQPConnection, queue: String) async throws -> Duration {
            let start = ContinuousClock.now
            var received = 0
            let consumer = connection.consume(queue: queue, prefetch: prefetch)
            for try await delivery in consumer {
                delivery.ack()
                received += 1
                if received == messages { break }
            }
            consumer.cancel()
            return ContinuousClock.now - start
        }

        private func report(_ phase: String, _ time: Duration) {
            let seconds = time.seconds
            let rate = Double(messages) / seconds
            print(
                "  \(phase.padding(toLength: 38, withPad: " ", startingAt: 0)) \(Int(rate)) msg/s  (\(String(format: "%.2f", seconds)) s)"
            )
        }
    }
}
