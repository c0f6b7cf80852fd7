import PipelineCore
import Testing

/// One backoff for every exponential retry: the broker's reconnects, the search for a
/// PostgreSQL primary, Google Play acknowledgements.
@Suite struct BackoffTests {
    @Test func growsByItsFactorFromTheFirstFailureUpToItsCap() {
        let backoff = Backoff(base: .milliseconds(250), cap: .seconds(4))
        let delays = (1...7).map { backoff.delay(afterFailures: $0) }
        #expect(
            delays == [
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4),
            ])
        // No failure yet counts as the first; a long outage stays at the cap
        #expect(backoff.delay(afterFailures: 0) == .milliseconds(250))
        #expect(backoff.delay(afterFailures: 10_000) == .seconds(4))
    }

    @Test func jitterKeepsAShareOfTheDelayWithinItsRange() {
        let backoff = Backoff(base: .seconds(1), factor: 3, cap: .seconds(60), jitter: 0.8...1.0)
        var generator = Counting()
        for failures in 1...6 {
            let full = min(Double(1) * pow3(failures - 1), 60)
            let delay = backoff.delay(afterFailures: failures, using: &generator)
            #expect(delay >= .seconds(full * 0.8) && delay <= .seconds(full), "after \(failures): \(delay)")
        }
        // And the shares drawn differ: many clients failing together spread out
        let draws = Set((0..<20).map { _ in backoff.delay(afterFailures: 2, using: &generator) })
        #expect(draws.count > 1)
    }

    private func pow3(_ exponent: Int) -> Double { (0..<exponent).reduce(1.0) { value, _ in value * 3 } }

    /// A generator whose draws step through the whole range: the test sees both ends.
    struct Counting: RandomNumberGenerator {
        var state: UInt64 = 0
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            return state
        }
    }
}
