import Synchronization

/// Counts deliveries in flight against ``Notifier/Configuration/maxInFlight`` and lets the
/// poll loop wait for room without polling. Children release their slot as they finish, so a
/// waiter is always resumed: every delivery ends within its request timeout.
final class DeliverySlots: Sendable {
    private struct State {
        var inUse = 0
        var waiter: (needed: Int, continuation: CheckedContinuation<Void, Never>)?
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Free slots now.
    var available: Int {
        state.withLock { capacity - $0.inUse }
    }

    /// Takes one slot; the caller checked ``available`` first.
    func take() {
        state.withLock { $0.inUse += 1 }
    }

    /// Gives a slot back and wakes the waiter once there is the room it asked for.
    func release() {
        let ready = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.inUse -= 1
            guard let waiter = state.waiter, capacity - state.inUse >= waiter.needed else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        ready?.resume()
    }

    /// Returns once at least `needed` slots are free (clamped to the capacity). One waiter at a time.
    func waitForRoom(_ needed: Int) async {
        let needed = min(max(needed, 1), capacity)
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if capacity - state.inUse >= needed { return true }
                precondition(state.waiter == nil, "DeliverySlots has one waiter at a time")
                state.waiter = (needed, continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
