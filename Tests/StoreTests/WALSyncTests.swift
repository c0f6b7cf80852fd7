import Dispatch
import Foundation
import Glibc
import PipelineCore
import PipelineTesting
import Synchronization
import Testing

@testable import Store
@testable import StoreSQLite

/// The intake's commits are synced after the write lock is let go (``WALSync``): another
/// process writes during the sync, the commit still returns only once synced, and callers
/// waiting together share one sync. Two `SQLiteDatabase`s on one path stand for two
/// processes, as in ``WriteLockTests``.
@Suite struct WALSyncTests {
    @Test func anotherProcessWritesWhileAnIntakeCommitIsBeingSyncedAndTheCommitReturnsAfterTheSync() async throws {
        try await withTemporaryDatabase { intake, path in
            let other = try SQLiteDatabase(path: path)
            let walSync = try #require(intake.walSync)
            // Holds the sync thread, so that the intake's commit waits in its sync.
            let release = DispatchSemaphore(value: 0)
            walSync.queue.async { release.wait() }
            let returned = Flag()
            let accepted = Task {
                let outcomes = try await IntakeStore(intake).accept(
                    [Fixture.receipt("r-1", account: "a")], now: Fixture.t0)
                returned.value.store(true, ordering: .releasing)
                return outcomes
            }
            // The intake's row is committed (visible) while its sync waits...
            try await waitUntil {
                try await other.snapshot { db in try await db.rows("SELECT id FROM receipts").count } == 1
            }
            // ...and the write lock is free: the other process's transaction commits meanwhile.
            try await other.transaction { db in
                try await db.execute("INSERT INTO accounts (id, created_at) VALUES ('other', ?)", [Date()])
            }
            let returnedEarly = returned.value.load(ordering: .acquiring)
            #expect(!returnedEarly, "the commit returned before its sync")
            release.signal()
            let outcomes = try await accepted.value
            #expect(outcomes.count == 1)
            let syncs = walSync.completed.load(ordering: .relaxed)
            #expect(syncs >= 1)
            #expect(try intake.connectionSettings().synchronous == 2, "the writer is back at FULL")
        }
    }

    @Test func callersWaitingTogetherShareOneSync() async throws {
        try await withTemporaryDatabase { database in
            let walSync = try #require(database.walSync)
            let release = DispatchSemaphore(value: 0)
            walSync.queue.async { release.wait() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<10 { group.addTask { try await walSync.sync() } }
                // Every caller is waiting before the first sync can start.
                try await Task.sleep(for: .milliseconds(100))
                release.signal()
                try await group.waitForAll()
            }
            let syncs = walSync.completed.load(ordering: .relaxed)
            #expect(syncs == 1)
        }
    }

    @Test func aWALThatCannotBeOpenedFailsTheCommitAsUnavailable() async throws {
        try await withTemporaryDatabase { database, path in
            let walSync = try #require(database.walSync)
            // A WAL path that loops: open fails with ELOOP, not "no WAL".
            let loop = path + "-loop"
            let broken = WALSync(databasePath: loop)
            #expect(symlink(loop + "-wal", loop + "-wal") == 0)
            await #expect(throws: SQLError.self) { try await broken.sync() }
            // With no WAL file at all there is nothing to sync.
            try await WALSync(databasePath: path + "-absent").sync()
            try await walSync.sync()
        }
    }

    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private func waitUntil(_ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
