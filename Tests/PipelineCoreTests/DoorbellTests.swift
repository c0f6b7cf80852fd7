import PipelineCore
import Testing

/// The notifier's doorbell: a ring wakes the waiter, or is kept for the next wait; a wait ends
/// at its timeout or when cancelled. Bounds are hang guards (a minute against a wait of an
/// hour), never tight timings.
@Suite struct DoorbellTests {
    @Test func aRingWhileNobodyWaitsIsKeptForTheNextWait_once() async {
        let bell = Doorbell()
        bell.ring()
        bell.ring()
        let clock = ContinuousClock()
        let first = await clock.measure { await bell.wait(atMost: .seconds(3600)) }
        #expect(first < .seconds(60))
        // Two rings before a wait are one: the next wait runs to its timeout.
        let second = await clock.measure { await bell.wait(atMost: .milliseconds(50)) }
        #expect(second >= .milliseconds(50))
    }

    @Test func aRingWakesTheWaiter() async throws {
        let bell = Doorbell()
        let clock = ContinuousClock()
        let started = clock.now
        let waiting = Task { await bell.wait(atMost: .seconds(3600)) }
        try await Task.sleep(for: .milliseconds(50))
        bell.ring()
        await waiting.value
        #expect(clock.now - started < .seconds(60))
    }

    @Test func aWaitEndsAtItsTimeoutUnrung() async {
        let elapsed = await ContinuousClock().measure { await Doorbell().wait(atMost: .milliseconds(30)) }
        #expect(elapsed >= .milliseconds(30))
    }

    @Test func aCancelledWaitEnds() async throws {
        let bell = Doorbell()
        let clock = ContinuousClock()
        let started = clock.now
        let waiting = Task { await bell.wait(atMost: .seconds(3600)) }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        await waiting.value
        #expect(clock.now - started < .seconds(60))
    }
}
