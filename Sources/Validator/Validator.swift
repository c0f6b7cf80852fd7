import Broker
import Foundation
import Logging
import Observability
import PipelineCore
import ServiceLifecycle

/// The validator stage: consumes the validate queue, asks the verify endpoint, and
/// hands on the result (a verdict to the fulfiller, a copy to a delay tier, or a dead
/// letter), confirmed by the broker before the original is acked. Stateless: run as
/// many as you like.
public struct Validator: Service {
    public struct Configuration: Sendable {
        /// Verifications in flight at once.
        public var concurrency: Int
        /// Unacknowledged deliveries the broker may send ahead; at least `concurrency`.
        public var prefetch: Int
        public var retryPolicy: RetryPolicy
        /// On graceful shutdown, how long verifications in flight may take to finish; the
        /// ones still running then are abandoned and their messages requeued.
        public var shutdownGrace: Duration

        public init(
            concurrency: Int = 256, prefetch: Int? = nil, retryPolicy: RetryPolicy = RetryPolicy(),
            shutdownGrace: Duration = .seconds(10)
        ) {
            self.concurrency = max(1, concurrency)
            self.prefetch = max(prefetch ?? concurrency, self.concurrency)
            self.retryPolicy = retryPolicy
            self.shutdownGrace = shutdownGrace
        }
    }

    let connection: AMQPConnection
    let topology: PipelineTopology
    let verifier: any ReceiptVerifier
    let configuration: Configuration
    let logger: Logger
    /// Whether this process traces, read once (AttemptSpan.swift).
    let tracing = PipelineTracing.isEnabled
    /// Messages handed on whose confirms are not yet in (``handOn(_:by:logger:then:)``):
    /// waited for before ``run()`` returns, so that the connection closes after them.
    let handedOn = InFlight()

    public init(
        connection: AMQPConnection, topology: PipelineTopology, verifier: any ReceiptVerifier,
        configuration: Configuration = .init(), logger: Logger
    ) {
        self.connection = connection
        self.topology = topology
        self.verifier = verifier
        self.configuration = configuration
        self.logger = logger
    }

    /// Consumes until graceful shutdown, then lets the verifications in flight finish
    /// and ack for up to ``Configuration/shutdownGrace``; those still running then are
    /// cancelled and requeue their messages, and what was prefetched but not started goes
    /// back to the queue when the connection closes.
    public func run() async throws {
        let consumer = connection.consume(queue: topology.validateQueue, prefetch: configuration.prefetch)
        logger.info(
            "validator consuming",
            metadata: [
                "queue": "\(topology.validateQueue)", "concurrency": "\(configuration.concurrency)",
                "prefetch": "\(configuration.prefetch)",
            ])
        // Child tasks return false when a message is settled, true when the grace timer ends.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            var inFlight = 0
            for try await delivery in consumer.cancelOnGracefulShutdown() {
                if inFlight >= configuration.concurrency {
                    _ = try await group.next()
                    inFlight -= 1
                }
                group.addTask {
                    await handle(delivery)
                    return false
                }
                inFlight += 1
            }
            consumer.cancel()
            guard inFlight > 0 else { return }
            logger.info("validator stopping, finishing verifications in flight", metadata: ["in_flight": "\(inFlight)"])
            let grace = configuration.shutdownGrace
            group.addTask {
                try? await Task.sleep(for: grace)
                return true
            }
            while let timerFired = try await group.next() {
                if timerFired {
                    guard inFlight > 0 else { continue }  // the timer, stopped after the last one finished
                    logger.warning(
                        "shutdown grace period over, requeueing unfinished messages",
                        metadata: ["in_flight": "\(inFlight)"])
                    group.cancelAll()
                } else {
                    inFlight -= 1
                    if inFlight == 0 { group.cancelAll() }  // stops the timer
                }
            }
        }
        await handedOn.settled()
    }

    /// One attempt at one message. Never throws: every path settles the delivery.
    func handle(_ delivery: Delivery) async {
        let previousAttempts = Int(delivery.properties.headers[MessageHeader.attempts]?.intValue ?? 0)
        guard let submission = try? WireCoding.decoder().decode(Submission.self, from: Data(delivery.body)) else {
            var logger = logger
            logger[metadataKey: "receipt_id"] = "\(delivery.properties.messageID ?? "unknown")"
            logger.warning("unparseable message on the validate queue, dead-lettering it")
            let settled = await settle(
                delivery,
                by: deadLetter(delivery, reason: "unparseable_message", attempts: previousAttempts, lastError: nil),
                logger: logger)
            if settled { PipelineMetrics.deadLetteredByValidator.increment() }
            return
        }
        var logger = logger
        logger[metadataKey: "receipt_id"] = "\(submission.id)"
        let attempts = previousAttempts + 1
        // Checked here too, so that tracing off does not even build the queue's name.
        let traced =
            tracing ? AttemptSpan.start(delivery, queue: topology.validateQueue, attempt: attempts, enabled: true) : nil
        let started = ContinuousClock.now
        let outcome = await verifier.verify(submission)
        let elapsed = ContinuousClock.now - started
        traced?.verified(outcome, store: submission.evidence.store, elapsed: elapsed)
        guard !Task.isCancelled else {
            traced?.end(settled: false)
            // Shutting down past the grace period: the answer may be an artefact of the
            // cancellation, so decide nothing and let another validator take the message.
            logger.info("verification abandoned at shutdown, requeueing")
            delivery.nack(requeue: true)
            return
        }
        PipelineMetrics.verifyDuration(store: submission.evidence.store, outcome: outcome.label).record(elapsed)
        logger.debug("verified", metadata: ["outcome": "\(outcome.label)", "ms": "\(elapsed.milliseconds)"])

        let messages: [OutgoingMessage]
        let counted: MetricCounter
        switch configuration.retryPolicy.disposition(after: outcome, attempts: attempts) {
        case .done:
            messages = [verdictMessage(Verdict(submission, outcome: outcome, attempts: attempts), submission)]
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
            var headers = delivery.properties.republishableHeaders
            headers[MessageHeader.attempts] = .int(Int64(attempts))
            headers[MessageHeader.lastError] = .string(reason)
            headers = MessageHeader.appendingAttempt(attempts, error: reason, at: Date(), to: headers)
            var properties = delivery.properties
            properties.headers = headers
            messages = [
                OutgoingMessage(exchange: "", routingKey: tier, body: delivery.body, properties: properties),
                verdictMessage(Verdict(submission, outcome: outcome, attempts: attempts, retrying: true), submission),
            ]
            counted = PipelineMetrics.retried
        case .later(let delay):
            // Not an attempt: the budget had no room, so the message waits, its count unchanged.
            let tier = topology.delayTier(atMost: delay)
            traced?.chose("wait", tier: (tier, delay))
            logger.debug(
                "over the call budget, deferring", metadata: ["tier": "\(tier)", "reason": "\(outcome.reason ?? "")"])
            var properties = delivery.properties
            properties.headers = delivery.properties.republishableHeaders
            messages = [OutgoingMessage(exchange: "", routingKey: tier, body: delivery.body, properties: properties)]
            counted = PipelineMetrics.deferred
        case .deadLetter(let reason):
            logger.warning(
                "attempts used up, dead-lettering", metadata: ["attempts": "\(attempts)", "reason": "\(reason)"])
            messages = deadLetter(delivery, reason: reason, attempts: attempts, lastError: outcome.reason)
            counted = PipelineMetrics.deadLetteredByValidator
            traced?.chose("dead_letter")
        }
        handOn(delivery, by: traced?.carried(by: messages) ?? messages, logger: logger) { settled in
            if settled { counted.increment() }
            traced?.end(settled: settled)
        }
    }

    /// ``settle(_:by:logger:)`` without waiting: the first try's outcome is heard on the
    /// connection's thread, which acks the delivery itself, so a message handed on wakes
    /// no task after its publish. Only a try that fails comes back to a task, to try again.
    private func handOn(
        _ delivery: Delivery, by messages: [OutgoingMessage], logger: Logger,
        then done: @escaping @Sendable (_ settled: Bool) -> Void
    ) {
        handedOn.begin()
        connection.publish(messages, thenAck: delivery) { results in
            guard results.contains(where: { (try? $0.get()) == nil }) else {
                done(true)
                return handedOn.end()
            }
            Task {
                done(await settle(delivery, by: messages, logger: logger, tried: results))
                handedOn.end()
            }
        }
    }

    /// Publishes `messages` with confirms, then acks; requeues the delivery if the broker
    /// would not take them, so that nothing is acked before its successor is safe.
    /// - Returns: whether the messages were handed on (false: requeued).
    /// - Parameter tried: the first try's outcome, when it was made already.
    @discardableResult
    private func settle(
        _ delivery: Delivery, by messages: [OutgoingMessage], logger: Logger,
        tried: [Result<Void, PublishError>]? = nil
    ) async -> Bool {
        for attempt in 1...3 {
            // Acked by the connection's thread as the last confirm arrives.
            let results: [Result<Void, PublishError>]
            if attempt == 1, let tried {
                results = tried
            } else {
                results = await connection.publish(messages, thenAck: delivery)
            }
            let failure = results.lazy.compactMap { result -> PublishError? in
                if case .failure(let error) = result { return error }
                return nil
            }.first
            guard let failure else { return true }
            logger.warning("cannot hand the message on", metadata: ["error": "\(failure)", "try": "\(attempt)"])
            guard failure.isRetryable, connection.isConnected else { break }
            try? await Task.sleep(for: .milliseconds(100 * attempt))
        }
        // Back to the queue for another try; quorum queues count deliveries, so a message
        // that can never be handed on ends in the dead-letter queue (delivery limit).
        delivery.nack(requeue: true)
        return false
    }

    private func verdictMessage(_ verdict: Verdict, _ submission: Submission) -> OutgoingMessage {
        let body = (try? WireCoding.encoder().encode(verdict)).map(Array.init) ?? []
        var properties = MessageProperties(messageID: verdict.receiptID, type: "verdict", timestamp: Date())
        properties.headers[MessageHeader.submittedAt] = .int(Int64(submission.submittedAt.timeIntervalSince1970 * 1000))
        return OutgoingMessage(
            exchange: topology.workExchange, routingKey: PipelineTopology.fulfilKey, body: body, properties: properties)
    }

    private func deadLetter(_ delivery: Delivery, reason: String, attempts: Int, lastError: String?)
        -> [OutgoingMessage]
    {
        [
            delivery.deadLetter(
                to: topology.deadExchange, from: topology.validateQueue, reason: reason, attempts: attempts,
                lastError: lastError)
        ]
    }

    /// The delay tier after `attempt`, or a longer one when the endpoint asked for more time.
    private func retryTier(after attempt: Int, hint: Duration?) -> (queue: String, delay: Duration) {
        var tier = topology.retryTier(afterAttempt: attempt)
        guard let hint else { return tier }
        var next = attempt
        while tier.delay < hint, next < topology.retryDelays.count {
            next += 1
            tier = topology.retryTier(afterAttempt: next)
        }
        return tier
    }
}

extension Verdict {
    init(_ submission: Submission, outcome: VerificationOutcome, attempts: Int, retrying: Bool = false) {
        let decided: Outcome
        var environment: String?
        var transactions: [VerifiedTransaction] = []
        var notification: StoreNotification?
        switch outcome {
        case .valid(let env, let list):
            decided = .valid
            environment = env
            transactions = list
        case .notification(let verified):
            decided = .valid
            environment = verified.environment
            notification = verified
        case .rejected:
            decided = .rejected
        case .transient, .deferred:
            decided = retrying ? .retrying : .rejected
        }
        self.init(
            outcome: decided, receiptID: submission.id, accountID: submission.accountID,
            orderID: submission.orderID, productID: submission.productID, reason: outcome.reason, attempts: attempts,
            environment: environment, transactions: transactions, notification: notification, decidedAt: Date())
    }
}

extension VerificationOutcome {
    var reason: String? {
        switch self {
        case .valid, .notification: return nil
        case .rejected(let reason), .transient(let reason, _), .deferred(let reason, _): return reason
        }
    }

    var retryAfter: Duration? {
        switch self {
        case .transient(_, let retryAfter): return retryAfter
        case .deferred(_, let retryAfter): return retryAfter
        default: return nil
        }
    }

    var label: String {
        switch self {
        case .valid: return "valid"
        case .notification: return "notification"
        case .rejected: return "rejected"
        case .transient: return "transient"
        case .deferred: return "deferred"
        }
    }
}

extension Evidence {
    /// The store that answers for this evidence, as the verify metrics label it.
    var store: String {
        storeEvidence.metricsStore
    }
}
