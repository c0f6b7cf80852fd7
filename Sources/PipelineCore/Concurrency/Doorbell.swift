import Synchronization

/// Tells one waiter that there is work, instead of its polling for it: the fulfiller rings
/// when it committed (and so wrote webhooks to the outbox), the notifier of the same process
/// waits on it. A ring while nobody waits is kept for the next wait, so none is lost between
/// a look at the work and the wait that follows it.
public final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    /// There is work: wakes the waiter, or the next one to wait.
    public func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when rung (at once if it was rung since the last wait), after `timeout`, or
    /// when the task is cancelled. One waiter at a time.
    public func wait(atMost timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.rungOrCancelled() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func rungOrCancelled() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
