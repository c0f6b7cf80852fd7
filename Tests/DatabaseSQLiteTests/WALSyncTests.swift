import Database
import Dispatch
import Foundation
import Glibc
import PipelineCore
import PipelineTesting
import SettlementWriter
import Synchronization
import Testing

@testable import DatabaseSQLite
@testable import DatabaseTesting
@testable import Repositories

/// The intake's commits are synced after the processes' write lock is let go (``WALSync``):
/// another process writes during the sync, and the commit still returns only once synced.
/// Two `SQLiteDatabase`s on one path stand for two processes, as in ``WriteLockTests``.
@Suite struct WALSyncTests {
    @Test func anotherProcessWritesWhileAnIntakeCommitIsBeingSyncedAndTheCommitReturnsAfterTheSync() async throws {
        try await withTemporaryDatabase { intake, path in
            let other = try SQLiteDatabase(path: path)
            let walSync = try #require(intake.walSync)
            // Holds the intake's sync, so that its commit waits in it.
            let release = DispatchSemaphore(value: 0)
            let syncs = Counter()
            walSync.beforeSync.withLock {
                $0 = {
                    syncs.value.add(1, ordering: .relaxed)
                    release.wait()
                }
            }
            let returned = Flag()
            let accepted = Task {
                let outcomes = try await IntakeRepository(intake).accept(
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
            walSync.beforeSync.withLock { $0 = nil }
            release.signal()
            let outcomes = try await accepted.value
            #expect(outcomes.count == 1)
            #expect(syncs.value.load(ordering: .relaxed) == 1)
            #expect(try intake.connectionSettings().synchronous == 2, "the writer is back at FULL")
        }
    }

    @Test func otherWritesAreSyncedInTheLockAsBefore() async throws {
        try await withTemporaryDatabase { database in
            let walSync = try #require(database.walSync)
            let syncs = Counter()
            walSync.beforeSync.withLock { $0 = { syncs.value.add(1, ordering: .relaxed) } }
            try await database.transaction { db in
                try await db.execute("INSERT INTO accounts (id, created_at) VALUES ('a', ?)", [Date()])
            }
            _ = try await IntakeRepository(database).accept([Fixture.receipt("r-1", account: "a")], now: Fixture.t0)
            try await IntakeRepository(database).markPublished(["r-1"], at: Fixture.t0)
            #expect(syncs.value.load(ordering: .relaxed) == 1, "only the intake's commit is synced outside the lock")
        }
    }

    @Test func aRelaxedCommitIsSyncedByItselfSoonAfterOnceForABurst() async throws {
        try await withTemporaryDatabase { database in
            let walSync = try #require(database.walSync)
            _ = try await IntakeRepository(database).accept([Fixture.receipt("r-1", account: "a")], now: Fixture.t0)
            let syncs = Counter()
            walSync.beforeSync.withLock { $0 = { syncs.value.add(1, ordering: .relaxed) } }
            let marked = ContinuousClock.now
            for _ in 0..<5 { try await IntakeRepository(database).markPublished(["r-1"], at: Fixture.t0) }
            #expect(syncs.value.load(ordering: .relaxed) == 0, "a relaxed commit waited for its sync")
            try await waitUntil { syncs.value.load(ordering: .relaxed) > 0 }
            let after = ContinuousClock.now - marked
            #expect(after >= .seconds(WALSync.relaxedDelay * 0.9) && after < .seconds(3), "synced \(after) after")
            try await Task.sleep(for: .seconds(WALSync.relaxedDelay * 2))
            #expect(syncs.value.load(ordering: .relaxed) == 1, "five relaxed commits in a burst, one sync")
        }
    }

    @Test func aWALThatCannotBeOpenedFailsTheSyncAsUnavailable() async throws {
        try await withTemporaryDatabase { _, path in
            // A WAL path that loops: open fails with ELOOP, not "no WAL".
            let loop = path + "-loop"
            #expect(symlink(loop + "-wal", loop + "-wal") == 0)
            #expect(throws: SQLError.self) { try WALSync(databasePath: loop).sync() }
            // With no WAL file at all there is nothing to sync.
            try WALSync(databasePath: path + "-absent").sync()
        }
    }

    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
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
