import Testing

@testable import Console

/// The console's login throttle by itself: failures count per address and name and per
/// address, never per name, and a full table forgets its oldest keys one by one.
@Suite struct LoginThrottleTests {
    static let t0 = ContinuousClock.now

    @Test func failuresForANameFromOneAddressNeverDelayThatNameFromAnother() {
        let throttle = LoginThrottle(policy: .init(freeFailures: 1, firstDelay: .seconds(10)))
        // Given alice's name guessed wrong ten times from A
        let fromA = LoginThrottle.keys(address: "192.0.2.1", operatorName: "alice")
        for _ in 0..<10 { throttle.failed(fromA, now: Self.t0) }

        // Then A waits for alice, and alice from B does not
        #expect(throttle.wait(fromA, now: Self.t0) != nil)
        #expect(throttle.wait(LoginThrottle.keys(address: "192.0.2.2", operatorName: "alice"), now: Self.t0) == nil)
    }

    @Test func oneAddressGuessingManyNamesWaitsAfterItsOwnFreeFailures() {
        let throttle = LoginThrottle(
            policy: .init(freeFailures: 5, freeFailuresPerAddress: 3, firstDelay: .seconds(10)))
        // Given four names guessed once each from A, none past its own free failures
        for name in ["n0", "n1", "n2", "n3"] {
            throttle.failed(LoginThrottle.keys(address: "192.0.2.1", operatorName: name), now: Self.t0)
        }

        // Then A waits for any name, one never tried included, and B does not
        #expect(
            throttle.wait(LoginThrottle.keys(address: "192.0.2.1", operatorName: "n9"), now: Self.t0) == .seconds(10))
        #expect(throttle.wait(LoginThrottle.keys(address: "192.0.2.2", operatorName: "n0"), now: Self.t0) == nil)
    }

    @Test func eachFurtherFailureDoublesTheWaitAndASuccessClearsTheNameAtItsAddress() {
        let throttle = LoginThrottle(
            policy: .init(freeFailures: 1, freeFailuresPerAddress: 100, firstDelay: .seconds(10)))
        let keys = LoginThrottle.keys(address: "192.0.2.1", operatorName: "alice")
        // Given two failures, then a third
        throttle.failed(keys, now: Self.t0)
        throttle.failed(keys, now: Self.t0)
        #expect(throttle.wait(keys, now: Self.t0) == .seconds(10))
        throttle.failed(keys, now: Self.t0)
        #expect(throttle.wait(keys, now: Self.t0) == .seconds(20))
        #expect(throttle.wait(keys, now: Self.t0 + .seconds(20)) == nil)

        // When the right secret comes, the name starts afresh there; the address keeps its count
        throttle.succeeded(keys)
        #expect(throttle.wait(keys, now: Self.t0) == nil)
        #expect(throttle.count == 1)
    }

    @Test func atCapacityTheOldestKeysAreForgottenOneByOneAndTheNewestPenaltiesKept() {
        // Every failure waits a minute; each attempt counts under two keys (address and name, address)
        let throttle = LoginThrottle(
            policy: .init(freeFailures: 0, freeFailuresPerAddress: 0, firstDelay: .seconds(60), capacity: 6))
        func keys(_ client: Int) -> [LoginThrottle.Key] {
            LoginThrottle.keys(address: "192.0.2.\(client)", operatorName: "admin")
        }
        // Given failures from five addresses, a second apart: ten keys for a table of six
        for client in 1...5 { throttle.failed(keys(client), now: Self.t0 + .seconds(client)) }

        // Then the two oldest addresses are forgotten, and the three newest still wait
        let now = Self.t0 + .seconds(5)
        #expect(throttle.count == 6)
        #expect(throttle.wait(keys(1), now: now) == nil)
        #expect(throttle.wait(keys(2), now: now) == nil)
        for client in 3...5 { #expect(throttle.wait(keys(client), now: now) != nil, "192.0.2.\(client)") }

        // When the oldest left fails again it is the newest, and the next new address evicts the one after it
        throttle.failed(keys(3), now: Self.t0 + .seconds(6))
        throttle.failed(keys(6), now: Self.t0 + .seconds(7))
        let later = Self.t0 + .seconds(7)
        #expect(throttle.count == 6)
        #expect(throttle.wait(keys(4), now: later) == nil)
        for client in [3, 5, 6] { #expect(throttle.wait(keys(client), now: later) != nil, "192.0.2.\(client)") }
    }

    @Test func aFullTableOfFreshPenaltiesNeverForgetsTheNewest() {
        let throttle = LoginThrottle(
            policy: .init(freeFailures: 0, freeFailuresPerAddress: 0, firstDelay: .seconds(60), capacity: 1_000))
        // Given ten times the table's capacity of attempts, from as many addresses
        for client in 0..<5_000 {
            throttle.failed(
                LoginThrottle.keys(address: "10.0.\(client / 256).\(client % 256)", operatorName: "admin"),
                now: Self.t0 + .milliseconds(client))
        }

        // Then the table is full, not emptied, and the newest 500 addresses still wait
        let now = Self.t0 + .seconds(5)
        #expect(throttle.count == 1_000)
        let waiting = (4_500..<5_000).filter { client in
            throttle.wait(
                LoginThrottle.keys(address: "10.0.\(client / 256).\(client % 256)", operatorName: "admin"), now: now)
                != nil
        }
        #expect(waiting.count == 500)
    }

    @Test func aKeyQuietForLongerThanTheMemoryIsForgotten() {
        let throttle = LoginThrottle(
            policy: .init(freeFailures: 0, freeFailuresPerAddress: 0, firstDelay: .seconds(60), memory: .seconds(3600)))
        throttle.failed(LoginThrottle.keys(address: "192.0.2.1", operatorName: "admin"), now: Self.t0)
        #expect(throttle.count == 2)
        // A failure elsewhere two hours later finds the first keys past the memory
        throttle.failed(LoginThrottle.keys(address: "192.0.2.2", operatorName: "admin"), now: Self.t0 + .seconds(7200))
        #expect(throttle.count == 2)
        #expect(
            throttle.wait(
                LoginThrottle.keys(address: "192.0.2.2", operatorName: "admin"), now: Self.t0 + .seconds(7200))
                == .seconds(60))
    }
}
