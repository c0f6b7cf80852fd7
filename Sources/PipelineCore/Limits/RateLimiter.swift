import Synchronization

/// Token buckets by key (an API token's digest, a client address): whether a request may
/// pass now, and if not, when to come back.
///
/// Bounded: at most `maxKeys` buckets are kept; when full, buckets that have refilled (so
/// forgetting them changes nothing) are dropped first, then the stalest.
///
/// ```swift
/// let limiter = RateLimiter<String>(RateLimit(perSecond: 200, burst: 400))
/// if case .limited(let retryAfter) = limiter.take("203.0.113.9") { ... 429 ... }
/// ```
public final class RateLimiter<Key: Hashable & Sendable>: Sendable {
    public enum Decision: Equatable, Sendable {
        case allowed
        /// Refused; a token is back after this long.
        case limited(retryAfter: Duration)
    }

    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    public let limit: RateLimit
    let maxKeys: Int
    private let buckets = Mutex<[Key: Bucket]>([:])

    public init(_ limit: RateLimit, maxKeys: Int = 100_000) {
        self.limit = limit
        self.maxKeys = maxKeys
    }

    /// Takes one token from `key`'s bucket.
    public func take(_ key: Key, now: ContinuousClock.Instant = .now) -> Decision {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: Double(limit.burst), updated: now)
            let elapsed = max(0, (now - bucket.updated).seconds)
            bucket.tokens = min(Double(limit.burst), bucket.tokens + elapsed * limit.perSecond)
            bucket.updated = now
            let decision: Decision
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                decision = .allowed
            } else {
                decision = .limited(retryAfter: .seconds((1 - bucket.tokens) / limit.perSecond))
            }
            if buckets[key] == nil, buckets.count >= maxKeys { evict(&buckets, now: now) }
            buckets[key] = bucket
            return decision
        }
    }

    /// Frees room: full buckets go (forgetting them changes nothing), then, if that is not
    /// enough, the stalest tenth, so that a flood of new keys costs little per key.
    private func evict(_ buckets: inout [Key: Bucket], now: ContinuousClock.Instant) {
        let refill = Duration.seconds(Double(limit.burst) / limit.perSecond)
        buckets = buckets.filter { now - $0.value.updated < refill }
        guard buckets.count >= maxKeys else { return }
        let stalest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(max(1, maxKeys / 10))
        for (key, _) in stalest { buckets[key] = nil }
    }
}

extension RateLimiter.Decision {
    /// Whole seconds for a `Retry-After` header: at least 1.
    public var retryAfterSeconds: Int? {
        guard case .limited(let after) = self else { return nil }
        return max(1, Int(after.seconds.rounded(.up)))
    }
}
