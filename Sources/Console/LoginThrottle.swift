import PipelineCore
import Synchronization

/// Failed console logins, counted per client address and operator name together, and per
/// client address alone, never per name alone: after a few free failures each further one
/// doubles the wait before the next attempt is even looked at, so guessing a secret takes
/// years while a mistyping operator waits seconds.
///
/// Why not per name: a count per name let anyone, from anywhere, make an operator's own
/// correct login wait (seven wrong guesses for `admin`, then one every 15 minutes). Per
/// address and name, a stranger's guesses slow only the stranger's address; per address
/// alone, one address guessing many names is slowed too, after more free failures, so that
/// operators behind one NAT mistyping now and then do not wait for each other.
///
/// Bounded, like every table an attacker can grow: at ``Policy/capacity`` keys the oldest
/// failure's key is forgotten, one at a time, never the whole table.
final class LoginThrottle: Sendable {
    struct Policy: Sendable {
        /// Failures of one operator name from one address allowed before any wait.
        var freeFailures = 5
        /// Failures from one address, whatever the names, allowed before any wait.
        var freeFailuresPerAddress = 20
        /// The wait after the first failure beyond the free ones; doubled by each next.
        var firstDelay: Duration = .seconds(1)
        var maximumDelay: Duration = .seconds(900)
        /// A key without failures for this long starts afresh (and is forgotten).
        var memory: Duration = .seconds(3600)
        /// Keys kept at most; beyond, the key whose last failure is oldest goes first.
        var capacity = 50_000
    }

    /// What failures are counted under.
    enum Key: Hashable, Sendable {
        /// One operator name tried from one client address.
        case attempt(address: String, operatorName: String)
        /// Every name tried from one client address.
        case address(String)
    }

    private struct Record {
        var failures = 0
        var blockedUntil: ContinuousClock.Instant
        var lastFailure: ContinuousClock.Instant
        /// The record's place in ``Table/order``.
        var stamp: UInt64 = 0
    }

    /// The records, and their keys in the order of their last failure, oldest first. An
    /// entry of `order` whose stamp is not its key's record's is stale (the key failed again
    /// later, or was cleared) and is skipped.
    private struct Table {
        var records: [Key: Record] = [:]
        var order: [(key: Key, stamp: UInt64)] = []
        var head = 0
        var lastStamp: UInt64 = 0

        /// The key whose last failure is oldest, and its record.
        mutating func oldest() -> (key: Key, record: Record)? {
            while head < order.count {
                let entry = order[head]
                if let record = records[entry.key], record.stamp == entry.stamp { return (entry.key, record) }
                head += 1
            }
            return nil
        }

        /// Forgets the key whose last failure is oldest; false when there is none.
        mutating func removeOldest() -> Bool {
            guard let oldest = oldest() else { return false }
            records[oldest.key] = nil
            head += 1
            return true
        }

        /// Stores `record` under `key` as the newest failure.
        mutating func store(_ record: Record, _ key: Key) {
            var record = record
            lastStamp += 1
            record.stamp = lastStamp
            records[key] = record
            order.append((key, lastStamp))
            // Stale and passed entries are dropped once they outnumber the live ones.
            if order.count > 64, order.count > 2 * records.count {
                order = records.map { ($0.key, $0.value.stamp) }.sorted { $0.stamp < $1.stamp }
                head = 0
            }
        }
    }

    let policy: Policy
    private let table = Mutex(Table())

    init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// The keys of one attempt: its client address with the operator name it tries, and its
    /// client address alone.
    static func keys(address: String, operatorName: String) -> [Key] {
        [.attempt(address: address, operatorName: String(operatorName.prefix(64))), .address(address)]
    }

    /// Keys remembered now.
    var count: Int { table.withLock { $0.records.count } }

    /// How long these keys must still wait, or nil if an attempt may be checked now.
    func wait(_ keys: [Key], now: ContinuousClock.Instant = .now) -> Duration? {
        table.withLock { table in
            keys.compactMap { table.records[$0].map { $0.blockedUntil - now } }.filter { $0 > .zero }.max()
        }
    }

    func failed(_ keys: [Key], now: ContinuousClock.Instant = .now) {
        table.withLock { table in
            // Forgotten first: keys quiet for longer than the memory, then the oldest over capacity.
            while let oldest = table.oldest(), now - oldest.record.lastFailure >= policy.memory,
                table.removeOldest()
            {}
            for key in keys {
                var record = table.records[key] ?? Record(blockedUntil: now, lastFailure: now)
                if now - record.lastFailure >= policy.memory { record.failures = 0 }
                record.failures += 1
                record.lastFailure = now
                let beyond = record.failures - freeFailures(key)
                if beyond > 0 {
                    let delay = policy.firstDelay * (1 << min(beyond - 1, 30))
                    record.blockedUntil = now + min(delay, policy.maximumDelay)
                }
                if table.records[key] == nil {
                    while table.records.count >= max(policy.capacity, 1), table.removeOldest() {}
                }
                table.store(record, key)
            }
        }
    }

    /// A correct login: its name starts afresh from its address. The address's own count
    /// stays (one right login does not excuse a hundred names guessed from there); it fades
    /// with the memory.
    func succeeded(_ keys: [Key]) {
        table.withLock { table in
            for key in keys {
                if case .attempt = key { table.records[key] = nil }
            }
        }
    }

    private func freeFailures(_ key: Key) -> Int {
        switch key {
        case .attempt: policy.freeFailures
        case .address: policy.freeFailuresPerAddress
        }
    }
}
