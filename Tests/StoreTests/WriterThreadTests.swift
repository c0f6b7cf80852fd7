import Foundation
import PipelineTesting
import Store
import Synchronization
import Testing

@testable import StoreSQLite

/// A task on the database's writer thread (the intake's group commit) writes inline, on
/// that thread; any other task's writes go to GRDB's queue as before. The thread starts with
/// its first job and, once stopped, starts again for the next.
@Suite struct WriterThreadTests {
    @Test func aTaskOnTheWriterThreadWritesOnItAndOthersDoNot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.path + "/iap.sqlite")
        let executor = try #require(database.writeExecutor)

        let (caller, body) = try await Task(executorPreference: executor) {
            let caller = Self.thread()
            let body = try await database.transaction(priority: .urgent, sync: .durable) { session in
                try await session.execute("SELECT 1")
                return Self.thread()
            }
            return (caller, body)
        }.value
        #expect(database.writerThread.isCurrent == false)
        #expect(caller == body, "the write ran on the caller's thread, the writer thread")

        let elsewhere = try await Task {
            try await database.transaction(priority: .normal, sync: .relaxed) { _ in Self.thread() }
        }.value
        #expect(elsewhere != caller, "a task elsewhere writes on GRDB's queue")
    }

    @Test func aStoppedThreadStartsAgainForTheNextJob() async throws {
        let writer = WriterThread()
        let first = await Task(executorPreference: writer) { writer.isCurrent }.value
        writer.stop()
        // Whether the thread has ended yet or not, the next job runs.
        let second = await Task(executorPreference: writer) { writer.isCurrent }.value
        #expect(first && second)
    }

    /// This thread's id.
    private static func thread() -> UInt { UInt(pthread_self()) }
}
