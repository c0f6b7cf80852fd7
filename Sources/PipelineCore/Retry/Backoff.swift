import Foundation

/// How long to wait before trying again after failures in a row: `base`, multiplied by
/// `factor` after each further failure, never more than `cap`, and shortened by a random
/// share in `jitter` so that many clients failing together do not retry together.
///
/// The pipeline's exponential retries use it: the broker connection's reconnects, the search
/// for a PostgreSQL primary, the fulfiller's commits on a failing database, the stores'
/// confirmations and the other calls owed after a credit. The validator's retry tiers and
/// the notifier's webhook schedule are fixed lists of delays instead (the tiers are delayed
/// queues, the schedule is what receivers are told to expect).
///
/// ```swift
/// let backoff = Backoff(base: .milliseconds(250), cap: .seconds(4))
/// backoff.delay(afterFailures: 1)  // 250 ms, then 500 ms, 1 s, 2 s, 4 s, 4 s, ...
/// ```
public struct Backoff: Sendable, Hashable {
    public var base: Duration
    public var factor: Double
    public var cap: Duration
    /// The share of the delay kept, drawn uniformly from this range (`1...1`: none drawn).
    public var jitter: ClosedRange<Double>

    public init(base: Duration, factor: Double = 2, cap: Duration, jitter: ClosedRange<Double> = 1...1) {
        precondition(base >= .zero && factor >= 1 && cap >= base, "a backoff grows from base up to its cap")
        precondition(jitter.lowerBound > 0 && jitter.upperBound <= 1, "jitter keeps a share of the delay in (0, 1]")
        self.base = base
        self.factor = factor
        self.cap = cap
        self.jitter = jitter
    }

    /// The wait after `failures` failures in a row (the first failure is 1; 0 counts as 1).
    public func delay(afterFailures failures: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(afterFailures: failures, using: &generator)
    }

    /// The same, jitter drawn from `generator` (seeded in tests).
    public func delay(afterFailures failures: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        // Past the cap the exponent stops mattering; bounding it keeps the power finite.
        let steps = Double(min(max(failures, 1) - 1, 64))
        let grown = min(base.seconds * pow(factor, steps), cap.seconds)
        let kept =
            jitter.lowerBound == jitter.upperBound ? jitter.lowerBound : Double.random(in: jitter, using: &generator)
        return .seconds(grown * kept)
    }
}
