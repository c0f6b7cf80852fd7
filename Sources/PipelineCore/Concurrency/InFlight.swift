import Synchronization

/// Work handed off without waiting for it (a publish whose confirm is heard on the broker
/// connection's thread), counted so that a stage can wait, at shutdown, until none is left.
public final class InFlight: Sendable {
    private let state = Mutex<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))

    public init() {}

    /// One more piece of work under way.
    public func begin() {
        state.withLock { $0.count += 1 }
    }

    /// One piece of work over; wakes who waits when it was the last.
    public func end() {
        let waiters = state.withLock { state in
            state.count -= 1
            guard state.count == 0 else { return [CheckedContinuation<Void, Never>]() }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no work is under way.
    public func settled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.count > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
