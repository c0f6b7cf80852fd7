import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization
import Testing

@testable import DatabaseSQLite

/// A task on a writer thread (the intake's group commit, the fulfiller's batches) writes
/// inline, on that thread; any other task's writes go to GRDB's queue as before. The thread
/// starts with its first job, ends once idle, and starts again for the next.
@Suite struct WriterThreadTests {
    @Test func aTaskOnAWriterThreadWritesOnItAndOthersDoNot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.path + "/iap.sqlite")
        let executor = try #require(database.makeWriteExecutor())

        let (caller, body, onWriter) = try await Task(executorPreference: executor) {
            let caller = Self.thread()
            let body = try await database.transaction(priority: .urgent, sync: .durable) { session in
                try await session.execute("SELECT 1")
                return Self.thread()
            }
            return (caller, body, WriterThread.isCurrent)
        }.value
        #expect(onWriter)
        #expect(WriterThread.isCurrent == false)
        #expect(caller == body, "the write ran on the caller's thread, the writer thread")

        let elsewhere = try await Task {
            try await database.transaction(priority: .normal, sync: .relaxed) { _ in Self.thread() }
        }.value
        #expect(elsewhere != caller, "a task elsewhere writes on GRDB's queue")
    }

    @Test func eachWriteExecutorIsAThreadOfItsOwn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.path + "/iap.sqlite")
        let first = try #require(database.makeWriteExecutor())
        let second = try #require(database.makeWriteExecutor())
        // Both held busy at once: two threads, or the second would wait for the first.
        let gate = Gate()
        async let one = Task(executorPreference: first) { (gate.meet(), Self.thread()) }.value
        async let two = Task(executorPreference: second) { (gate.meet(), Self.thread()) }.value
        let (met, threads) = await ([one.0, two.0], [one.1, two.1])
        #expect(met == [true, true], "each met the other")
        #expect(threads[0] != threads[1])
    }

    @Test func anIdleThreadEndsAndTheNextJobStartsAnother() async throws {
        let name = "idle-writer-t"
        let writer = WriterThread(name: name, idle: .milliseconds(20))
        let first = await Task(executorPreference: writer) { (WriterThread.isCurrent, currentThreadName()) }.value
        #expect(first == (true, name), "the job ran on the writer thread, named for `top -H` and `perf`")
        // No job for longer than `idle`: the thread ends.
        var waited = 0
        while threadCount(named: name) > 0 && waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(threadCount(named: name) == 0, "the idle thread ended")
        let second = await Task(executorPreference: writer) { (WriterThread.isCurrent, currentThreadName()) }.value
        #expect(second == (true, name), "the next job started another")
    }

    /// This thread's id.
    private static func thread() -> UInt { UInt(pthread_self()) }
}

/// Two threads meet: each `meet()` blocks its thread until the other has come too, and
/// says whether it came (it gives up after ten seconds, should the two share one thread).
private final class Gate: Sendable {
    private let arrived = Mutex(0)

    func meet() -> Bool {
        arrived.withLock { $0 += 1 }
        for _ in 0..<100_000 where arrived.withLock({ $0 }) < 2 { usleep(100) }
        return arrived.withLock { $0 } >= 2
    }
}
