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
    }

    private let state = Mutex(State())

    public init() {}

    public func append(_ item: Element) {
        append(contentsOf: CollectionOfOne(item))
    }

    public func append(contentsOf items: some Sequence<Element>) {
        let waiter = state.withLock { state in
            state.items.append(contentsOf: items)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// No more items will come; `next` returns what is left, then nil (or throws `error`).
    public func finish(throwing error: (any Error)? = nil) {
        let waiter = state.withLock { state in
            state.finished = true
            state.failure = error
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
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

    /// The next batch like ``next(max:)``, but one that is not full waits `linger` for
    /// more before it is handed out. For writers nobody waits on: at a few hundred items a
    /// second, one transaction per item writes the same table and index pages again for
    /// each; a few milliseconds of patience write them once for several.
    public func next(max: Int, linger: Duration) async throws -> [Element]? {
        guard var batch = try await next(max: max) else { return nil }
        if batch.count < max && linger > .zero {
            try? await Task.sleep(for: linger)
            batch += takeNow(max: max - batch.count)
        }
        return batch
    }
}
