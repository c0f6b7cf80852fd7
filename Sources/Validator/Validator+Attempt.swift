import Broker
import Foundation
import Logging
import Observability
import PipelineCore

extension Validator {
    /// One attempt at each receipt of one message, all at once; what they decide is
    /// published together and the message acked after its confirms. Never throws: every
    /// path settles the delivery.
    func handle(_ delivery: Delivery) async {
        guard let parts = delivery.parts else {
            var logger = logger
            logger[metadataKey: "receipt_id"] = "\(delivery.properties.messageID ?? "unknown")"
            logger.warning("unreadable pack on the validate queue, dead-lettering it")
            handOn(delivery, by: [unparseable(delivery.body, delivery.properties)], logger: logger) { settled in
                if settled { PipelineMetrics.deadLetteredByValidator.increment() }
            }
            return
        }
        var readable: [(MessagePart, Submission)] = []
        var unreadable: [Decision] = []
        for part in parts {
            if let submission = Submission.decode(part.body) {
                readable.append((part, submission))
            } else {
                logger.warning(
                    "unparseable message on the validate queue, dead-lettering it",
                    metadata: ["receipt_id": "\(part.properties.messageID ?? "unknown")"])
                unreadable.append(
                    Decision(
                        verdict: nil, others: [unparseable(part.body, part.properties)],
                        counted: PipelineMetrics.deadLetteredByValidator, traced: nil))
            }
        }
        let attempts: [Attempt]
        if readable.count == 1, let (part, submission) = readable.first {
            attempts = [await attempt(part, submission)]
        } else {
            attempts = await withTaskGroup(of: (Int, Attempt).self) { group in
                for (index, (part, submission)) in readable.enumerated() {
                    group.addTask { (index, await attempt(part, submission)) }
                }
                var attempts = [Attempt?](repeating: nil, count: readable.count)
                for await (index, attempt) in group { attempts[index] = attempt }
                return attempts.compactMap { $0 }
            }
        }
        let ids = readable.map(\.1.id).joined(separator: ",")
        guard !Task.isCancelled else {
            // Shutting down past the grace period: an answer may be an artefact of the
            // cancellation, so decide nothing and let another validator take the message.
            for attempt in attempts { attempt.traced?.end(settled: false) }
            logger.info("verification abandoned at shutdown, requeueing", metadata: ["receipt_id": "\(ids)"])
            delivery.nack(requeue: true)
            return
        }
        let decisions = unreadable + attempts.map(decide)
        var logger = logger
        logger[metadataKey: "receipt_id"] = "\(ids)"
        // Each receipt's retry, wait or dead letter alone; their verdicts together.
        let verdicts = MessagePack.pack(decisions.compactMap(\.verdict)).map(\.message)
        handOn(delivery, by: decisions.flatMap(\.others) + verdicts, logger: logger) { settled in
            for decision in decisions {
                if settled { decision.counted.increment() }
                decision.traced?.end(settled: settled)
            }
        }
    }

    /// A message nobody can read, as a dead letter: at once, no attempt spent on it.
    private func unparseable(_ body: [UInt8], _ properties: MessageProperties) -> OutgoingMessage {
        .deadLetter(
            body: body, properties: properties, to: topology.deadExchange, from: topology.validateQueue,
            reason: "unparseable_message",
            attempts: Int(properties.headers[MessageHeader.attempts]?.intValue ?? 0))
    }

    /// One receipt's verification and its span.
    struct Attempt: Sendable {
        let part: MessagePart
        let submission: Submission
        /// This one included.
        let attempts: Int
        let outcome: VerificationOutcome
        let traced: AttemptSpan?
        let logger: Logger
    }

    /// What one receipt's attempt sends on, and the counter it counts in once confirmed.
    struct Decision: Sendable {
        /// For the fulfiller: packed with the others' (``MessagePack``).
        let verdict: OutgoingMessage?
        /// A copy to a delay tier, or a dead letter: alone.
        let others: [OutgoingMessage]
        let counted: MetricCounter
        let traced: AttemptSpan?
    }

    private func attempt(_ part: MessagePart, _ submission: Submission) async -> Attempt {
        var logger = logger
        logger[metadataKey: "receipt_id"] = "\(submission.id)"
        let attempts = Int(part.properties.headers[MessageHeader.attempts]?.intValue ?? 0) + 1
        // Checked here too, so that tracing off does not even build the queue's name.
        let traced =
            tracing
            ? AttemptSpan.start(part, submission, queue: topology.validateQueue, attempt: attempts, enabled: true) : nil
        let started = ContinuousClock.now
        let outcome = await verifier.verify(submission)
        let elapsed = ContinuousClock.now - started
        traced?.verified(outcome, store: submission.evidence.store, elapsed: elapsed)
        if !Task.isCancelled {
            PipelineMetrics.verifyDuration(store: submission.evidence.store, outcome: outcome.label).record(elapsed)
            logger.debug("verified", metadata: ["outcome": "\(outcome.label)", "ms": "\(elapsed.milliseconds)"])
        }
        return Attempt(
            part: part, submission: submission, attempts: attempts, outcome: outcome, traced: traced, logger: logger)
    }

    /// The retry policy's choice for one attempt, as the messages that carry it out: each
    /// the receipt's alone, whatever message it came in.
    private func decide(_ attempt: Attempt) -> Decision {
        let (part, submission, outcome, attempts, traced, logger) = (
            attempt.part, attempt.submission, attempt.outcome, attempt.attempts, attempt.traced, attempt.logger
        )
        var verdict: OutgoingMessage?
        var others: [OutgoingMessage] = []
        let counted: MetricCounter
        switch configuration.retryPolicy.disposition(after: outcome, attempts: attempts) {
        case .done:
            verdict = verdictMessage(Verdict(submission, outcome: outcome, attempts: attempts), submission)
            if case .rejected(let reason) = outcome {
                logger.info("receipt rejected", metadata: ["reason": "\(reason)"])
            }
            counted = outcome.reason == nil ? PipelineMetrics.validated : PipelineMetrics.rejected
            traced?.chose("verdict")
        case .retry(let attempt):
            let reason = outcome.reason ?? "transient"
            let chosen = retryTier(after: attempt, hint: outcome.retryAfter)
            let tier = chosen.queue
            traced?.chose("retry", tier: chosen)
            logger.info(
                "transient failure, retrying",
                metadata: ["attempts": "\(attempts)", "reason": "\(reason)", "tier": "\(tier)"])
            var properties = part.properties
            properties.headers = part.properties.republishableHeaders
            properties.headers[MessageHeader.attempts] = .int(Int64(attempts))
            properties.headers[MessageHeader.lastError] = .string(reason)
            properties.headers = MessageHeader.appendingAttempt(
                attempts, error: reason, at: Date(), to: properties.headers)
            others = [OutgoingMessage(exchange: "", routingKey: tier, body: part.body, properties: properties)]
            verdict = verdictMessage(
                Verdict(submission, outcome: outcome, attempts: attempts, retrying: true), submission)
            counted = PipelineMetrics.retried
        case .later(let delay):
            // Not an attempt: the budget had no room, so the message waits, its count unchanged.
            let tier = topology.delayTier(atMost: delay)
            traced?.chose("wait", tier: (tier, delay))
            logger.debug(
                "over the call budget, deferring", metadata: ["tier": "\(tier)", "reason": "\(outcome.reason ?? "")"])
            var properties = part.properties
            properties.headers = part.properties.republishableHeaders
            others = [OutgoingMessage(exchange: "", routingKey: tier, body: part.body, properties: properties)]
            counted = PipelineMetrics.deferred
        case .deadLetter(let reason):
            logger.warning(
                "attempts used up, dead-lettering", metadata: ["attempts": "\(attempts)", "reason": "\(reason)"])
            others = [
                .deadLetter(
                    body: part.body, properties: part.properties, to: topology.deadExchange,
                    from: topology.validateQueue, reason: reason, attempts: attempts, lastError: outcome.reason)
            ]
            counted = PipelineMetrics.deadLetteredByValidator
            traced?.chose("dead_letter")
        }
        guard let traced else { return Decision(verdict: verdict, others: others, counted: counted, traced: nil) }
        return Decision(
            verdict: verdict.map { traced.carried(by: [$0])[0] }, others: traced.carried(by: others), counted: counted,
            traced: traced)
    }
}
