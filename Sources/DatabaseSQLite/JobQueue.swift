import Database
import Foundation

/// The jobs of an executor that runs them on one thread of its own, in order: the caller's
/// (``CallerThreadExecutor``) or one it starts (``WriterThread``).
final class JobQueue: @unchecked Sendable {
    /// Guards the fields below, and wakes the thread running the jobs.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    /// A thread runs the jobs, or has been asked to (the one `append` answered true).
    private var running = false
    /// Set by `close()`: the runner returns once the queue is empty.
    private var closed = false

    /// Adds `job`; true when no thread runs the queue, so the caller must start one.
    func append(_ job: UnownedJob) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        jobs.append(job)
        condition.signal()
        let start = !running
        running = true
        return start
    }

    /// Lets the runner return once it has run the jobs it has.
    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    /// Runs the jobs on this thread as they come, on behalf of `executor`, until the queue
    /// is closed and empty, or, given `idle`, none has come for that long. Then the next
    /// `append` answers true, for a new runner.
    func runJobs(on executor: UnownedTaskExecutor, idle: Duration? = nil) {
        while let job = next(idle: idle) { job.runSynchronously(on: executor) }
    }

    private func next(idle: Duration?) -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = idle.map {
            Date(
                timeIntervalSinceNow: Double($0.components.seconds)
                    + Double($0.components.attoseconds) / 1e18)
        }
        while jobs.isEmpty && !closed {
            if let deadline {
                if !condition.wait(until: deadline) && jobs.isEmpty { break }
            } else {
                condition.wait()
            }
        }
        guard !jobs.isEmpty else {
            running = false
            closed = false
            return nil
        }
        return jobs.removeFirst()
    }
}
