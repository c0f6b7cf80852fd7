import Notifier
import Testing

/// A deterministic generator (SplitMix64), so jitter can be checked exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct RetryScheduleTests {
    @Test func theDefaultGrowsThenRepeatsHourlyAndGivesUpAfterTwelveAttempts() {
        let schedule = RetrySchedule(jitter: 0)

        let delays = (1...12).map { schedule.delay(afterAttempt: $0) }

        #expect(schedule.maxAttempts == 12)
        #expect(
            delays == [
                .seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(1800), .seconds(3600),
                .seconds(3600), .seconds(3600), .seconds(3600), .seconds(3600), .seconds(3600), nil,
            ])
    }

    @Test func jitterOnlyShortensAndStaysWithinItsFraction() {
        let schedule = RetrySchedule(delays: [.seconds(100)], maxAttempts: 3, jitter: 0.2)
        var generator = SeededGenerator(state: 42)

        let delays = (0..<500).compactMap { _ in schedule.delay(afterAttempt: 1, using: &generator) }

        #expect(delays.count == 500)
        #expect(delays.allSatisfy { $0 > .seconds(80) && $0 <= .seconds(100) })
        // Spread out, not one value: a burst of failures does not come back as a burst.
        #expect(Set(delays).count > 400)
        #expect(delays.min()! < .seconds(82) && delays.max()! > .seconds(98))
    }

    @Test func theSameSeedGivesTheSameDelays() {
        let schedule = RetrySchedule()
        var a = SeededGenerator(state: 7)
        var b = SeededGenerator(state: 7)

        #expect(
            (1...11).map { schedule.delay(afterAttempt: $0, using: &a) }
                == (1...11).map { schedule.delay(afterAttempt: $0, using: &b) })
    }

    @Test func exponentialDoublesUpToTheCap() {
        let schedule = RetrySchedule.exponential(
            initial: .milliseconds(10), cap: .milliseconds(50), maxAttempts: 6, jitter: 0)

        #expect(schedule.delays == [.milliseconds(10), .milliseconds(20), .milliseconds(40), .milliseconds(50)])
        #expect(
            (1...6).map { schedule.delay(afterAttempt: $0) } == [
                .milliseconds(10), .milliseconds(20), .milliseconds(40), .milliseconds(50), .milliseconds(50), nil,
            ])
    }

    @Test func aSingleAttemptScheduleNeverRetries() {
        #expect(RetrySchedule(delays: [.seconds(1)], maxAttempts: 1).delay(afterAttempt: 1) == nil)
    }
}
