import Foundation
import PipelineCore

/// Headers the pipeline sets on messages, so that operators and later attempts know
/// their history. RabbitMQ's own `x-death` and `x-delivery-count` come beside them.
public enum MessageHeader {
    /// Verify attempts made so far.
    public static let attempts = "x-iap-attempts"
    /// The last transient error.
    public static let lastError = "x-iap-last-error"
    /// Why the message was dead-lettered.
    public static let deadReason = "x-iap-dead-reason"
    /// The queue the message was dead-lettered from.
    public static let sourceQueue = "x-iap-source-queue"
    /// When it was dead-lettered (Unix seconds).
    public static let deadAt = "x-iap-dead-at"
    /// When the intake committed the receipt (Unix milliseconds), on verdicts: the
    /// fulfiller's end-to-end latency starts there.
    public static let submittedAt = "x-iap-submitted-at"
    /// Every failed verify attempt, oldest first, one string each
    /// (`attempt 2 at 2026-11-22T09:00:00.000Z: timeout`): what an operator reads in
    /// `iap dlq show`. The last ``attemptLogLimit`` are kept.
    public static let attemptLog = "x-iap-attempt-log"
    public static let attemptLogLimit = 50
    /// The W3C trace context of the span that published the message (OpenTelemetry's
    /// messaging conventions), when tracing is on: the consumer's span continues it.
    public static let traceparent = "traceparent"

    /// `headers` with one more failed attempt in ``attemptLog``.
    public static func appendingAttempt(
        _ attempt: Int, error: String, at date: Date, to headers: [String: AMQPValue]
    ) -> [String: AMQPValue] {
        var headers = headers
        var log = headers[attemptLog]?.arrayValue ?? []
        log.append(.string("attempt \(attempt) at \(Timestamp.format(date)): \(error)"))
        headers[attemptLog] = .array(Array(log.suffix(attemptLogLimit)))
        return headers
    }
}
