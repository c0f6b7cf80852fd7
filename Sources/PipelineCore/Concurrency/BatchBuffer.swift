import Dispatch
import Synchronization

/// Items handed over one or many at a time and taken in batches: whatever has arrived,
/// up to a limit, without waiting for a timer. Under load the batches grow, so a slow
/// step (an fsync, a broker confirm) is paid once for many items; when idle, each item
/// goes alone at once. One consumer takes; any number of producers append.
public final class BatchBuffer<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var waiter: CheckedContinuation<Void, Never>?
        var finished = false
        var failure: (any Error)?
        /// The consumer waiting for its batch to fill (``next(max:linger:)``).
        var filling: Filling?
        var fillings = 0
    }

    /// A batch waiting to fill: it needs `missing` more items.
    private struct Filling {
        let id: Int
        let waiter: CheckedContinuation<Void, Never>
        let missing: Int
    }

    private let state = Mutex(State())

    public init() {}

    public func append(_ item: Element) {
        append(contentsOf: CollectionOfOne(item))
    }

    public func append(contentsOf items: some Sequence<Element>) {
        let (waiter, filled) = state.withLock { state in
            state.items.append(contentsOf: items)
            var filled: CheckedContinuation<Void, Never>?
            if let filling = state.filling, state.items.count >= filling.missing {
                filled = filling.waiter
                state.filling = nil
            }
            defer { state.waiter = nil }
            return (state.waiter, filled)
        }
        waiter?.resume()
        filled?.resume()
    }

    /// No more items will come; `next` returns what is left, then nil (or throws `error`).
    public func finish(throwing error: (any Error)? = nil) {
        let (waiter, filling) = state.withLock { state in
            state.finished = true
            state.failure = error
            defer { (state.waiter, state.filling) = (nil, nil) }
            return (state.waiter, state.filling)
        }
        waiter?.resume()
        filling?.waiter.resume()
    }

    /// Whatever is waiting now, at most `max` items, without waiting for more (maybe none).
    public func takeNow(max: Int) -> [Element] {
        state.withLock { state in
            let batch = Array(state.items.prefix(max))
            state.items.removeFirst(batch.count)
            return batch
        }
    }

    /// The next batch of at most `max` items, waiting for the first; nil once finished and empty.
    public func next(max: Int) async throws -> [Element]? {
        while true {
            let (batch, done, failure): ([Element], Bool, (any Error)?) = state.withLock { state in
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

    /// The next batch like ``next(max:)``, but one that is not full waits up to `linger` for
    /// more before it is handed out, and goes as soon as it is full. For writers nobody waits
    /// on: at a few hundred items a second, one transaction per item writes the same table
    /// and index pages again for each; a few milliseconds of patience write them once for
    /// several. Cancelling the consumer's task ends the wait.
    public func next(max: Int, linger: Duration) async throws -> [Element]? {
        guard var batch = try await next(max: max) else { return nil }
        if linger > .zero && batch.count < max {
            await fill(missing: max - batch.count, within: linger)
            batch += takeNow(max: max - batch.count)
        }
        return batch
    }

    /// Returns once `missing` items are waiting, after `linger`, on finish or on
    /// cancellation, whichever is first.
    private func fill(missing: Int, within linger: Duration) async {
        let id = state.withLock { state in
            state.fillings += 1
            return state.fillings
        }
        let timer = DispatchWorkItem { self.endFilling(id) }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if state.finished || Task.isCancelled || state.items.count >= missing { return true }
                    state.filling = Filling(id: id, waiter: continuation, missing: missing)
                    return false
                }
                if now {
                    continuation.resume()
                } else {
                    let (seconds, attoseconds) = linger.components
                    let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
                    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: timer)
                }
            }
        } onCancel: {
            endFilling(id)
        }
        timer.cancel()
    }

    /// Ends the wait `id` if it is still on: its time is up or its task was cancelled.
    private func endFilling(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let filling = state.filling, filling.id == id else { return nil }
            state.filling = nil
            return filling.waiter
        }
        waiter?.resume()
    }
}
