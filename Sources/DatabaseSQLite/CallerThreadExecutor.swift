import Database
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
final class CallerThreadExecutor: TaskExecutor, Sendable {
    private let queue = JobQueue()

    func enqueue(_ job: consuming ExecutorJob) {
        // The caller runs the jobs (`run`), whether or not it has started yet.
        _ = queue.append(UnownedJob(job))
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
            executor.queue.close()
        }
        executor.queue.runJobs(on: executor.asUnownedTaskExecutor())
        return try outcome.withLock { $0! }.get()
    }
}

/// A value handed to a task that runs on the thread it was made on (``CallerThreadExecutor``):
/// GRDB's `Database` is not `Sendable`, and is never used anywhere else.
struct SameThread<Value>: @unchecked Sendable {
    let value: Value
}
