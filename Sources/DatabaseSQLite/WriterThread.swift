import Database
import Foundation
import PipelineCore

/// A thread of its own for a task that writes again and again (the intake's group commit,
/// the fulfiller's batches), where ``SQLiteDatabase``'s writes run inline, GRDB's queue taken
/// synchronously from here, instead of each hopping to GRDB's queue and then to the task
/// pool to resume: one wake-up fewer per commit. At 100 receipts/s the intake spent 5-9 %
/// less CPU, and in count mode 3-5 % less with 4-7 % more receipts a second (BENCHMARKS.md,
/// issue 29, fifteenth session).
///
/// Started by the first job; it ends once no job has come for `idle`, and the next starts
/// it again, so an idle owner holds no thread and a dropped one leaks none.
final class WriterThread: TaskExecutor, Sendable {
    private let queue = JobQueue()
    /// The thread's name, as `top -H` and `perf` show it (at most 15 bytes).
    private let name: String
    private let idle: Duration

    init(name: String = "iap-writer", idle: Duration = .seconds(2)) {
        self.name = name
        self.idle = idle
    }

    func enqueue(_ job: consuming ExecutorJob) {
        guard queue.append(UnownedJob(job)) else { return }
        let thread = Thread(named: name) { [self] in
            Self.current.set(self)
            queue.runJobs(on: asUnownedTaskExecutor(), idle: idle)
            Self.current.set(nil)
        }
        thread.start()
    }

    /// Whether the caller runs on a writer thread, any: one that may block on GRDB's queue.
    static var isCurrent: Bool { current.get() != nil }

    private static let current = ThreadSpecific()
}

/// A pointer kept per thread (POSIX thread-specific data): which ``WriterThread`` a thread runs.
private struct ThreadSpecific: @unchecked Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "out of thread-specific keys")
        self.key = key
    }

    func get() -> UnsafeMutableRawPointer? { pthread_getspecific(key) }

    func set(_ writer: WriterThread?) {
        pthread_setspecific(key, writer.map { Unmanaged.passUnretained($0).toOpaque() })
    }
}
