import Synchronization

/// A budget of calls a second to someone else's API (Apple's per-endpoint limits), shared
/// by every process that calls it.
///
/// Calls are booked one after another at least ``spacing`` apart (the generic cell rate
/// algorithm without a burst): however many processes book, no window of one second holds
/// more than ``perSecond`` calls. A call may be booked at most `maxWait` ahead; past that the
/// caller is told to come back, so a queue of callers never grows without end.
///
/// ```swift
/// let budget = CallBudget(name: "appstore.production.getTransactionInfo", limit: 50, share: 0.9)
/// var state = CallBudget.State()
/// let grant = budget.reserve(in: &state, now: nowMicros, maxWait: .seconds(10))
/// // .go(atMicros:) for the first call, each next one 22,223 µs later
/// ```
public struct CallBudget: Hashable, Sendable, CustomStringConvertible {
    /// Who the budget is for, unique across the deployment: `appstore.<environment>.<endpoint>`.
    public var name: String
    /// The provider's limit, in calls a second.
    public var limit: Double
    /// The calls a second spent: `limit × share`, at least one a minute.
    public var perSecond: Double

    /// - Parameters:
    ///   - name: The budget's unique name.
    ///   - limit: The provider's limit per second.
    ///   - share: How much of it to spend (below 1 leaves room for the jitter between our clock
    ///     and theirs).
    public init(name: String, limit: Double, share: Double = 1) {
        precondition(limit > 0 && share > 0, "a call budget needs a positive limit and share")
        self.name = name
        self.limit = limit
        self.perSecond = max(limit * share, 1.0 / 60)
    }

    /// The time between two calls, in microseconds (rounded up, so never faster than the rate).
    public var spacingMicros: Int64 { Int64((1_000_000 / perSecond).rounded(.up)) }

    /// How late after its turn a call may still go. Calls booked at `perSecond` and each
    /// delayed by at most `d` put at most `perSecond × (1 + d) + 1` calls in any second, under
    /// `limit` while `d < limit / perSecond - 1`: half of that headroom (55 ms at a 90 %
    /// share) keeps a busy machine's late wake-ups from crowding a second.
    public var latenessMicros: Int64 { Int64(max(0, (limit / perSecond - 1) / 2) * 1_000_000) }

    public var description: String { "\(name) \(perSecond)/s of \(limit)" }

    /// What is stored of a budget: when the next call may go, and until when nobody may call
    /// (the provider said `429`). Microseconds since 1970.
    public struct State: Hashable, Sendable {
        public var nextSlotMicros: Int64
        public var pausedUntilMicros: Int64

        public init(nextSlotMicros: Int64 = 0, pausedUntilMicros: Int64 = 0) {
            self.nextSlotMicros = nextSlotMicros
            self.pausedUntilMicros = pausedUntilMicros
        }
    }

    /// The answer to one booking.
    public enum Grant: Hashable, Sendable {
        /// Booked: call at this time (now, or a little later).
        case go(atMicros: Int64)
        /// Nothing free within the wait allowed: ask again at this time. Nothing was booked.
        case later(atMicros: Int64)
    }

    /// Books the next call at `now`, or says when to come back.
    /// - Parameters:
    ///   - state: The budget's state; updated when a call is booked.
    ///   - now: The time, in microseconds since 1970.
    ///   - maxWait: The longest a caller may wait for its turn.
    public func reserve(in state: inout State, now: Int64, maxWait: Duration) -> Grant {
        let start = max(now, state.nextSlotMicros, state.pausedUntilMicros)
        guard start - now <= maxWait.microseconds else { return .later(atMicros: start) }
        state.nextSlotMicros = start + spacingMicros
        return .go(atMicros: start)
    }

    /// Nobody calls before `until` (microseconds): the provider's `Retry-After`. A pause
    /// only ever grows.
    public func pause(_ state: inout State, until: Int64) {
        state.pausedUntilMicros = max(state.pausedUntilMicros, until)
    }
}

/// Where call budgets are kept: the pipeline's store (shared by every process), or memory.
public protocol CallBudgetKeeper: Sendable {
    /// Books a call of `budget` (``CallBudget/reserve(in:now:maxWait:)``), on the shared state.
    /// - Parameter now: The clock in microseconds since 1970, read once the state is held:
    ///   a time read before waiting for it would book turns already past.
    /// - Returns: The grant, and how many calls are booked in the grant's second, every
    ///   process's (the budget in use).
    func reserve(
        _ budget: CallBudget, maxWait: Duration, now: @escaping @Sendable () -> Int64
    ) async throws -> (CallBudget.Grant, calls: Int)
    /// Nobody calls `budget` before `until` (``CallBudget/pause(_:until:)``).
    func pause(_ budget: CallBudget, until: Int64) async throws
}

/// Budgets kept in this process's memory: for a process alone (a command-line call), or
/// tests. Processes that share a provider share a store-backed keeper instead.
public final class LocalCallBudgetKeeper: CallBudgetKeeper {
    private let states = Mutex<[String: (CallBudget.State, second: Int64, calls: Int)]>([:])

    public init() {}

    public func reserve(
        _ budget: CallBudget, maxWait: Duration, now: @escaping @Sendable () -> Int64
    ) -> (CallBudget.Grant, calls: Int) {
        states.withLock { states in
            var entry = states[budget.name] ?? (CallBudget.State(), 0, 0)
            let grant = budget.reserve(in: &entry.0, now: now(), maxWait: maxWait)
            guard case .go(let at) = grant else { return (grant, entry.calls) }
            let second = at / 1_000_000
            entry.calls = second == entry.second ? entry.calls + 1 : 1
            entry.second = second
            states[budget.name] = entry
            return (grant, entry.calls)
        }
    }

    public func pause(_ budget: CallBudget, until: Int64) {
        states.withLock { states in
            var entry = states[budget.name] ?? (CallBudget.State(), 0, 0)
            budget.pause(&entry.0, until: until)
            states[budget.name] = entry
        }
    }
}
