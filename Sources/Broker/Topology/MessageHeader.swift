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
}
