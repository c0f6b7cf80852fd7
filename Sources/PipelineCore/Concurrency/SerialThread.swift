import Foundation
import Synchronization

/// A dedicated thread that runs blocking jobs one at a time, in order.
///
/// SQLite commits block for an fsync; on a 2-core machine the cooperative pool has two
/// threads, and blocking one of them halves the process. Stages hand their database
/// work to a `SerialThread` and await the result instead.
///
/// ```swift
/// let db = SerialThread(name: "fulfiller-db")
/// let results = try await db.run { try database.apply(verdicts, catalog: catalog, now: .now) }
/// ```
public final class SerialThread: Sendable {
    private final class Queue: Sendable {
        struct State {
            var jobs: [@Sendable () -> Void] = []
            var stopped = false
        }

        let state = Mutex(State())
        let signal = DispatchSemaphore(value: 0)

        func loop() {
            while true {
                signal.wait()
                let (job, stopped) = state.withLock { state in
                    (state.jobs.isEmpty ? nil : state.jobs.removeFirst(), state.stopped)
                }
                if let job {
                    job()
                } else if stopped {
                    return
                }
            }
        }
    }

    private let queue = Queue()

    public init(name: String) {
        let thread = Thread { [queue] in queue.loop() }
        thread.name = name
        thread.start()
    }

    deinit { shutdown() }

    /// Runs `body` on the thread and returns its result.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            execute { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Queues `job` without waiting for it.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        queue.state.withLock { $0.jobs.append(job) }
        queue.signal.signal()
    }

    /// Lets queued jobs finish, then ends the thread.
    public func shutdown() {
        let first = queue.state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first { queue.signal.signal() }
    }
}
