/// The validator's seam to whoever vouches for receipts: Apple's `verifyReceipt`, the
/// App Store Server API, local JWS verification, or the stub store.
public protocol ReceiptVerifier: Sendable {
    /// Asks whether `submission` is a real purchase. Never throws: every failure is
    /// classified as permanent (``VerificationOutcome/rejected(reason:)``) or transient.
    func verify(_ submission: Submission) async -> VerificationOutcome
}

/// What a verify endpoint said, classified by what the pipeline should do next.
public enum VerificationOutcome: Hashable, Sendable {
    /// Real: credit these transactions. `environment` is `Production` or `Sandbox`.
    case valid(environment: String, transactions: [VerifiedTransaction])
    /// A genuine App Store Server Notification, to apply (refund, renewal, expiry, ...).
    case notification(StoreNotification)
    /// Will never verify (forged, wrong app, malformed beyond repair): reject with reason.
    case rejected(reason: String)
    /// Might verify later (network, timeout, 5xx, 429, Apple's retryable statuses).
    /// `retryAfter` is the server's hint, when it gave one.
    case transient(reason: String, retryAfter: Duration? = nil)
    /// Not attempted: a budget we must stay under (Apple's calls per second) has no room
    /// before `retryAfter`. Try again then; it costs the message no attempt.
    case deferred(reason: String, retryAfter: Duration)
}
