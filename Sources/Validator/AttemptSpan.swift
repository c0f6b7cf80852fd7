import Broker
import Observability
import PipelineCore
import Tracing

/// One verify attempt as a span: a consumer span continuing the message's `traceparent`
/// (the relay's publish, or the attempt before it through a retry tier), recording the
/// store's answer and what the validator chose (verdict, retry tier and its delay, wait,
/// dead letter). Every message the attempt publishes carries this span's context, so the
/// next attempt and the fulfiller continue it. Nil when tracing is off: no span, no attribute.
struct AttemptSpan: Sendable {
    let span: any Span

    /// - Parameter part: one receipt's part of the message (``MessagePack``), with its own trace context.
    static func start(
        _ part: MessagePart, _ submission: Submission, queue: String, attempt: Int, enabled: Bool
    ) -> AttemptSpan? {
        guard enabled else { return nil }
        let span = startSpan(
            SpanName.process(queue), context: TraceParent.context(part.properties.headers), ofKind: .consumer)
        span.attributes.messaging(
            operation: "process", destination: queue, messageID: part.properties.messageID,
            bodySize: part.body.count)
        span.attributes["iap.receipt.id"] = submission.id
        span.attributes["iap.verify.attempt"] = attempt
        return AttemptSpan(span: span)
    }

    /// The store's answer.
    func verified(_ outcome: VerificationOutcome, store: String, elapsed: Duration) {
        span.attributes["iap.store"] = store
        span.attributes["iap.verify.outcome"] = outcome.label
        span.attributes["iap.verify.duration_ms"] = elapsed.milliseconds
        if let reason = outcome.reason { span.attributes["iap.verify.reason"] = reason }
        if let retryAfter = outcome.retryAfter {
            span.attributes["iap.verify.retry_after_ms"] = retryAfter.milliseconds
        }
    }

    /// What was done with the answer; for a retry or a wait, the delay tier chosen.
    func chose(_ disposition: String, tier: (queue: String, delay: Duration)? = nil) {
        span.attributes["iap.disposition"] = disposition
        guard let tier else { return }
        span.attributes["iap.retry.queue"] = tier.queue
        span.attributes["iap.retry.delay_ms"] = tier.delay.milliseconds
    }

    /// `messages` carrying this span's context.
    func carried(by messages: [OutgoingMessage]) -> [OutgoingMessage] {
        messages.map { message in
            var message = message
            TraceParent.inject(span.context, into: &message.properties.headers)
            return message
        }
    }

    func end(settled: Bool) {
        if !settled { span.attributes["iap.requeued"] = true }
        span.end()
    }
}
