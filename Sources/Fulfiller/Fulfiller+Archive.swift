import Broker
import Database
import DeadLetters
import Foundation
import Observability
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter

extension Fulfiller {
    /// Consumes the dead-letter queue: each batch of letters is archived whole in
    /// `dead_letters`, in the transaction that marks their receipts dead and queues their
    /// `receipt.dead` webhooks, then acked. A letter is never nacked: the dead-letter queue
    /// has no dead-letter exchange of its own, so a nack would lose it; one the database
    /// refuses is retried until it is taken. Letters without a receipt id (poison) are
    /// archived too, for an operator.
    func archiveDeadLetters() async throws {
        let consumer = connection.consumeInBatches(queue: topology.deadQueue, prefetch: configuration.prefetch)
        try await consumer.eachBatch(max: configuration.batchSize) { batch in await archive(batch) }
    }

    /// Archives one batch, retrying until the database takes it, then acks it at once.
    func archive(_ batch: [Delivery]) async {
        guard let last = batch.last else { return }
        // A message that carried several receipts is archived as one letter each.
        let lettered = batch.flatMap { delivery in
            DeadLetter.letters(of: delivery, now: Date()).map { (delivery: delivery, letter: $0) }
        }
        let letters = lettered.map(\.letter)
        var failures = 0
        while !Task.isCancelled {
            do {
                let results = try await deadLetters.archive(letters, catalog: catalog, now: Date())
                for ((delivery, _), result) in zip(lettered, results) where result != nil {
                    // RabbitMQ's own dead letters (delivery limit); the validator counts its own.
                    if delivery.properties.headers[MessageHeader.deadReason] == nil, !delivery.deaths.isEmpty {
                        PipelineMetrics.deadLetteredByBroker.increment()
                    }
                }
                for (letter, result) in zip(letters, results) {
                    logger.warning(
                        "dead letter archived",
                        metadata: [
                            "receipt_id": "\(letter.receiptID ?? "none")", "dead_letter": "\(letter.id)",
                            "reason": "\(letter.reason)",
                            "result": "\(result.map { "\($0)" } ?? "duplicate or no receipt")",
                        ])
                }
                last.ack(multiple: true)
                return
            } catch {
                logger.error(
                    "cannot archive dead letters, retrying",
                    metadata: ["error": "\(error)", "count": "\(letters.count)"])
                failures += 1
                try? await Task.sleep(for: Self.databaseBackoff.delay(afterFailures: failures))
            }
        }
        // Cancelled past the shutdown grace period with nothing archived: unacked, the
        // letters go back to the queue when the connection closes (never nacked, see above).
    }
}
