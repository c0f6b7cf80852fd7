import Foundation
import Synchronization

/// Runs an async body to its end on the calling thread, which waits for it.
///
/// GRDB hands out a connection only inside a synchronous closure on the connection's own
/// queue, while the stores' code is async (so that PostgreSQL's statements suspend instead
/// of blocking a thread). Inside that closure the body runs as a task whose every job
/// (it prefers this executor) is run here, in order: its statements run on the connection's
/// queue as GRDB requires, and since SQLite's calls never suspend, the body goes from start
/// to end without leaving the thread. Should it await something elsewhere (an actor), the
/// thread waits until its continuation comes back.
final class CallerThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// Guards `jobs` and `done`, and wakes the waiting thread.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var done = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on this thread and returns what it returned.
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let executor = CallerThreadExecutor()
        let outcome = Mutex<Result<T, any Error>?>(nil)
        Task(executorPreference: executor) {
            let result: Result<T, any Error>
            do {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            executor.finish()
        }
        executor.runJobs()
        return try outcome.withLock { $0! }.get()
    }

    private func finish() {
        condition.lock()
        done = true
        condition.signal()
        condition.unlock()
    }

    /// Runs every job as it comes, until the body's task has finished.
    private func runJobs() {
        let unowned = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty && !done { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: unowned)
        }
    }
}

/// A value handed to a task that runs on the thread it was made on (``CallerThreadExecutor``):
/// GRDB's `Database` is not `Sendable`, and is never used anywhere else.
struct SameThread<Value>: @unchecked Sendable {
    let value: Value
}
