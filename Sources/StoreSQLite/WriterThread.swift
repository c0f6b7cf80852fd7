import Foundation
import Synchronization

/// A thread of the database's own where a task that writes again and again (the intake's
/// group commit) runs, so that its writes run inline, GRDB's queue taken synchronously from
/// here, instead of each hopping to GRDB's queue and then to the task pool to resume: one
/// wake-up fewer per commit. At 100 receipts/s the intake spent 5-9 % less CPU, and in count
/// mode 3-5 % less with 4-7 % more receipts a second (BENCHMARKS.md, issue 29, fifteenth session).
///
/// Started by the first job, ended by ``stop()`` (the database's last copy going away); a job
/// after that starts it again.
final class WriterThread: TaskExecutor, @unchecked Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        var thread: pthread_t?
        var started = false
        var stopped = false
    }

    /// Guards `state`, and wakes the thread.
    private let condition = NSCondition()
    private var state = State()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        state.jobs.append(job)
        let start = !state.started
        state.started = true
        condition.signal()
        condition.unlock()
        if start {
            let thread = Thread { self.run() }
            thread.name = "SQLiteDatabase.writer"
            thread.start()
        }
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Lets the thread end once it has run the jobs it has.
    func stop() {
        condition.lock()
        state.stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        state.thread = pthread_self()
        condition.unlock()
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while state.jobs.isEmpty && !state.stopped { condition.wait() }
            guard !state.jobs.isEmpty else {
                // A job that comes after this starts the thread again.
                state.thread = nil
                state.started = false
                state.stopped = false
                condition.unlock()
                return
            }
            let job = state.jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}

/// Stops the ``WriterThread`` when the last copy of the database that owns it goes away.
final class WriterThreadLifetime: Sendable {
    let thread = WriterThread()
    deinit { thread.stop() }
}
