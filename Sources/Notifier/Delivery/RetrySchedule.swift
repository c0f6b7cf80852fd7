import Foundation

/// When to try a failed webhook again, and when to give up: a pure value, no clock inside.
///
/// The delay after the n-th failed attempt is `delays[n-1]`, or the last entry once the
/// table runs out (the cap), shortened by up to `jitter` of itself at random so that a burst
/// of failures does not come back as a burst. After ``maxAttempts`` attempts in all the
/// notification is given up on.
///
/// The default follows the shape Standard Webhooks senders use: 5 s, 30 s, 2 min, 10 min,
/// 30 min, 1 h, then hourly, 12 attempts in all, about 7 hours end to end.
///
/// ```swift
/// let schedule = RetrySchedule()                                       // production
/// let quick = RetrySchedule(delays: [.milliseconds(10)], maxAttempts: 3, jitter: 0)   // tests
/// if let delay = schedule.delay(afterAttempt: 2) { ... }               // 30 s minus jitter
/// ```
public struct RetrySchedule: Hashable, Sendable {
    /// The delay after the first, second, ... failed attempt; the last entry repeats.
    public var delays: [Duration]
    /// Attempts in all, the first included; after this many failures the row is failed for good.
    public var maxAttempts: Int
    /// The largest fraction a delay may be shortened by, in 0...1; 0 makes the schedule exact.
    public var jitter: Double

    /// The default delays: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h (then hourly).
    public static let defaultDelays: [Duration] = [
        .seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(1800), .seconds(3600),
    ]

    /// Creates a schedule.
    /// - Parameters:
    ///   - delays: Delays after each failed attempt in turn; the last one repeats. Not empty.
    ///   - maxAttempts: Attempts in all, at least 1.
    ///   - jitter: The largest fraction a delay may be shortened by, clamped to 0...1.
    public init(delays: [Duration] = defaultDelays, maxAttempts: Int = 12, jitter: Double = 0.2) {
        precondition(!delays.isEmpty, "a retry schedule needs at least one delay")
        precondition(maxAttempts >= 1, "maxAttempts must be at least 1")
        self.delays = delays
        self.maxAttempts = maxAttempts
        self.jitter = min(max(jitter, 0), 1)
    }

    /// A schedule growing by `factor` from `initial` up to `cap`.
    /// - Parameters:
    ///   - initial: The delay after the first failure.
    ///   - factor: The growth from one delay to the next, at least 1.
    ///   - cap: The longest delay.
    ///   - maxAttempts: Attempts in all.
    ///   - jitter: The largest fraction a delay may be shortened by.
    public static func exponential(
        initial: Duration, factor: Double = 2, cap: Duration, maxAttempts: Int = 12, jitter: Double = 0.2
    ) -> RetrySchedule {
        var delays: [Duration] = []
        var delay = min(initial, cap)
        while delays.count < max(maxAttempts - 1, 1) {
            delays.append(delay)
            if delay >= cap { break }
            delay = min(.seconds(delay.timeInterval * max(factor, 1)), cap)
        }
        return RetrySchedule(delays: delays, maxAttempts: maxAttempts, jitter: jitter)
    }

    /// The delay before the next attempt, or nil when `attempt` was the last one allowed.
    /// - Parameters:
    ///   - attempt: How many attempts have been made, the one that just failed included (1-based).
    ///   - generator: The source of jitter.
    public func delay(afterAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        let base = delays[min(max(attempt, 1), delays.count) - 1]
        guard jitter > 0 else { return base }
        return .seconds(base.timeInterval * (1 - jitter * Double.random(in: 0..<1, using: &generator)))
    }

    /// ``delay(afterAttempt:using:)`` with the system's random numbers.
    public func delay(afterAttempt attempt: Int) -> Duration? {
        var generator = SystemRandomNumberGenerator()
        return delay(afterAttempt: attempt, using: &generator)
    }

    /// When to try again after `attempt` failed at `now`, or nil to give up.
    /// - Parameters:
    ///   - attempt: How many attempts have been made (1-based).
    ///   - now: When the attempt failed.
    public func nextAttempt(afterAttempt attempt: Int, at now: Date) -> Date? {
        delay(afterAttempt: attempt).map { now.addingTimeInterval($0.timeInterval) }
    }
}

extension Duration {
    /// The duration in seconds, as Foundation counts time.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
