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
        // Child tasks return the verifications they finished, the grace timer -1 when it ends.
        try await withThrowingTaskGroup(of: Int.self) { group in
            // Verifications, not messages: a message may carry several receipts (MessagePack).
            var inFlight = 0
            for try await delivery in consumer.cancelOnGracefulShutdown() {
                while inFlight >= configuration.concurrency, let finished = try await group.next() {
                    inFlight -= finished
                }
                let weight = min(max(1, delivery.partCount), configuration.concurrency)
                group.addTask {
                    await handle(delivery)
                    return weight
                }
                inFlight += weight
            }
            consumer.cancel()
            guard inFlight > 0 else { return }
            logger.info("validator stopping, finishing verifications in flight", metadata: ["in_flight": "\(inFlight)"])
            let grace = configuration.shutdownGrace
            group.addTask {
                try? await Task.sleep(for: grace)
                return -1
            }
            while let finished = try await group.next() {
                if finished < 0 {
                    guard inFlight > 0 else { continue }  // the timer, stopped after the last one finished
                    logger.warning(
                        "shutdown grace period over, requeueing unfinished messages",
                        metadata: ["in_flight": "\(inFlight)"])
                    group.cancelAll()
                } else {
                    inFlight -= finished
                    if inFlight == 0 { group.cancelAll() }  // stops the timer
                }
            }
        }
        await handedOn.settled()
    }

    /// ``settle(_:by:logger:)`` without waiting: the first try's outcome is heard on the
    /// connection's thread, which acks the delivery itself, so a message handed on wakes
    /// no task after its publish. Only a try that fails comes back to a task, to try again.
    func handOn(
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

    func verdictMessage(_ verdict: Verdict, _ submission: Submission) -> OutgoingMessage {
        let body = verdict.wireJSON
        var properties = MessageProperties(messageID: verdict.receiptID, type: "verdict", timestamp: Date())
        properties.headers[MessageHeader.submittedAt] = .int(Int64(submission.submittedAt.timeIntervalSince1970 * 1000))
        return OutgoingMessage(
            exchange: topology.workExchange, routingKey: PipelineTopology.fulfilKey, body: body, properties: properties)
    }

    /// The delay tier after `attempt`, or a longer one when the endpoint asked for more time.
    func retryTier(after attempt: Int, hint: Duration?) -> (queue: String, delay: Duration) {
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
