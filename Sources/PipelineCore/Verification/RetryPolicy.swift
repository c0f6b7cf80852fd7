/// How many times a transient failure is retried before the message is dead-lettered.
public struct RetryPolicy: Hashable, Sendable {
    /// Verify attempts in all, the first included.
    public var maxAttempts: Int

    public init(maxAttempts: Int = 8) {
        precondition(maxAttempts >= 1)
        self.maxAttempts = maxAttempts
    }

    /// What the validator does with a message after `attempts` attempts ended in `outcome`.
    public func disposition(after outcome: VerificationOutcome, attempts: Int) -> Disposition {
        switch outcome {
        case .valid, .notification, .rejected:
            return .done
        case .transient(let reason, _):
            return attempts >= maxAttempts
                ? .deadLetter(reason: "attempts_exhausted: \(reason)") : .retry(attempt: attempts)
        case .deferred(_, let retryAfter):
            return .later(retryAfter)
        }
    }
}

/// The fate of a message at the end of one attempt.
public enum Disposition: Hashable, Sendable {
    /// A verdict goes to the fulfiller.
    case done
    /// Back through the delay tier for `attempt` (1-based: the attempt that just failed).
    case retry(attempt: Int)
    /// To the dead-letter queue for an operator, with the reason.
    case deadLetter(reason: String)
    /// Back through a delay tier of about this long, the attempt not counted (it never ran).
    case later(Duration)
}
