import Broker
import Synchronization

/// Turns a consumer's deliveries into batches: whatever has arrived, up to a limit,
/// without waiting for a timer. Under load batches fill up; when idle each delivery
/// goes alone at once.
final class DeliveryBatcher: Sendable {
    private struct State {
        var items: [Delivery] = []
        var waiter: CheckedContinuation<Void, Never>?
        var finished = false
        var failure: (any Error)?
    }

    private let state = Mutex(State())

    /// Reads `consumer` until it ends; run it beside the batch loop.
    func pump(_ consumer: Consumer) async {
        do {
            for try await delivery in consumer {
                let waiter = state.withLock { state in
                    state.items.append(delivery)
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
            finish(nil)
        } catch {
            finish(error)
        }
    }

    /// The next batch, or nil once the consumer ended and everything was taken.
    func next(max: Int) async throws -> [Delivery]? {
        while true {
            let (batch, done, failure): ([Delivery], Bool, (any Error)?) = state.withLock { state in
                let batch = Array(state.items.prefix(max))
                state.items.removeFirst(batch.count)
                return (batch, state.finished, state.failure)
            }
            if !batch.isEmpty { return batch }
            if done {
                if let failure { throw failure }
                return nil
            }
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if !state.items.isEmpty || state.finished { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    private func finish(_ error: (any Error)?) {
        let waiter = state.withLock { state in
            state.finished = true
            state.failure = error
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
