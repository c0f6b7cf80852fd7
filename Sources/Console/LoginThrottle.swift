import PipelineCore
import Synchronization

/// Failed console logins, counted per client address and per operator name: after a few
/// free failures each further one doubles the wait before the next attempt is even
/// looked at, so guessing a secret takes years while a mistyping operator waits seconds.
///
/// A wait, not a lockout: an attacker can slow an operator's logins, not block them for
/// long. Bounded, like every table an attacker can grow.
final class LoginThrottle: Sendable {
    struct Policy: Sendable {
        /// Failures allowed before any wait.
        var freeFailures = 5
        /// The wait after the first failure beyond the free ones; doubled by each next.
        var firstDelay: Duration = .seconds(1)
        var maximumDelay: Duration = .seconds(900)
        /// A key without failures for this long starts afresh.
        var memory: Duration = .seconds(3600)
    }

    private struct Record {
        var failures = 0
        var blockedUntil: ContinuousClock.Instant
        var lastFailure: ContinuousClock.Instant
    }

    let policy: Policy
    private let maxKeys: Int
    private let records = Mutex<[String: Record]>([:])

    init(policy: Policy = Policy(), maxKeys: Int = 50_000) {
        self.policy = policy
        self.maxKeys = maxKeys
    }

    /// The keys of one attempt: its client address and the operator name it tries.
    static func keys(address: String, operatorName: String) -> [String] {
        ["address:" + address, "operator:" + String(operatorName.prefix(64))]
    }

    /// How long these keys must still wait, or nil if an attempt may be checked now.
    func wait(_ keys: [String], now: ContinuousClock.Instant = .now) -> Duration? {
        records.withLock { records in
            let waits = keys.compactMap { records[$0].map { $0.blockedUntil - now } }.filter { $0 > .zero }
            return waits.max()
        }
    }

    func failed(_ keys: [String], now: ContinuousClock.Instant = .now) {
        records.withLock { records in
            if records.count + keys.count > maxKeys {
                records = records.filter { now - $0.value.lastFailure < policy.memory }
                if records.count + keys.count > maxKeys { records.removeAll() }
            }
            for key in keys {
                var record = records[key] ?? Record(blockedUntil: now, lastFailure: now)
                if now - record.lastFailure >= policy.memory { record.failures = 0 }
                record.failures += 1
                record.lastFailure = now
                let beyond = record.failures - policy.freeFailures
                if beyond > 0 {
                    let delay = policy.firstDelay * (1 << min(beyond - 1, 30))
                    record.blockedUntil = now + min(delay, policy.maximumDelay)
                }
                records[key] = record
            }
        }
    }

    func succeeded(_ keys: [String]) {
        records.withLock { records in
            for key in keys { records[key] = nil }
        }
    }
}
