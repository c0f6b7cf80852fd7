import PipelineCore
import Testing

/// `IAP_*_RATE_LIMIT` values and the token buckets they make, on a pinned clock.
@Suite struct RateLimitTests {
    @Test(arguments: [
        ("200/s burst 400", 200.0, 400), ("200", 200.0, 400), ("60/m", 1.0, 120), ("3/h burst 5", 3.0 / 3600, 5),
        ("  10/S  BURST 10 ", 10.0, 10),
    ])
    func limitsParse(text: String, perSecond: Double, burst: Int) throws {
        let limit = try #require(try RateLimit.parse(text, variable: "IAP_RATE_LIMIT"))
        #expect(abs(limit.perSecond - perSecond) < 1e-9)
        #expect(limit.burst == burst)
    }

    @Test func offDisablesTheLimit() throws {
        #expect(try RateLimit.parse("off", variable: "IAP_RATE_LIMIT") == nil)
    }

    @Test(arguments: ["", "fast", "0/s", "-5", "10/d", "10/s burst", "10/s burst 0", "10/s limit 5", "1/2/3"])
    func malformedLimitsNameTheSetting(text: String) {
        #expect(throws: SettingError.self) { try RateLimit.parse(text, variable: "IAP_RATE_LIMIT") }
    }

    @Test func aBucketAllowsItsBurstThenRefillsAtTheRate() {
        let limiter = RateLimiter<String>(RateLimit(perSecond: 2, burst: 3))
        let t0 = ContinuousClock.now
        // The burst passes at once, the next waits for half a second's token
        #expect((0..<3).map { _ in limiter.take("a", now: t0) } == Array(repeating: .allowed, count: 3))
        let refused = limiter.take("a", now: t0)
        #expect(refused == .limited(retryAfter: .milliseconds(500)))
        #expect(refused.retryAfterSeconds == 1)
        // Other keys have buckets of their own
        #expect(limiter.take("b", now: t0) == .allowed)
        // Half a second later one token is back, and only one
        #expect(limiter.take("a", now: t0 + .milliseconds(500)) == .allowed)
        #expect(limiter.take("a", now: t0 + .milliseconds(500)) != .allowed)
    }

    @Test func theNumberOfBucketsIsBounded() {
        let limiter = RateLimiter<Int>(RateLimit(perSecond: 1, burst: 1), maxKeys: 100)
        let t0 = ContinuousClock.now
        for key in 0..<10_000 { _ = limiter.take(key, now: t0) }
        // A key seen long ago may be forgotten, never refused wrongly by another's bucket
        #expect(limiter.take(20_000, now: t0) == .allowed)
    }

    @Test(arguments: ["true", "1", "yes", "on"])
    func boolSettingsReadTrue(text: String) throws {
        #expect(try EnvironmentReader(["X": text]).bool("X", default: false))
    }

    @Test func malformedBoolNamesTheSetting() {
        #expect(throws: SettingError.self) { try EnvironmentReader(["X": "maybe"]).bool("X", default: false) }
    }
}
