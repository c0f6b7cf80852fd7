import Database
import Dispatch
import Foundation
import PipelineCore
import PipelineTesting
import SettlementWriter
import Synchronization
import Testing

@testable import DatabaseSQLite
@testable import DatabaseTesting
@testable import Repositories

/// The processes writing one file queue on its write lock instead of SQLite's busy
/// sleeps and timeout; two `SQLiteDatabase`s on one path stand for two processes (each
/// opens the lock file on its own, and `flock` keeps those apart).
@Suite struct WriteLockTests {
    @Test func aWriterWaitsForAnotherProcessesTransactionLongerThanTheBusyTimeoutInsteadOfFailing() async throws {
        try await withTemporaryDatabase { _, path in
            // A busy timeout far shorter than the other's transaction: without the lock the
            // second write would fail with SQLITE_BUSY after 50 ms.
            let short = StoreConfiguration(busyTimeout: 0.05)
            let first = try SQLiteDatabase(path: path, configuration: short)
            let second = try SQLiteDatabase(path: path, configuration: short)
            let holding = DispatchSemaphore(value: 0)
            // Set as the first transaction ends, before its commit lets go of the lock.
            let firstDone = Atomic<Bool>(false)
            // The first sleeps inside its transaction, on the writer's own queue.
            async let long: Void = first.transaction { db in
                holding.signal()
                try await Task.sleep(for: .seconds(1))
                try await db.execute("INSERT INTO accounts (id, created_at) VALUES ('first', ?)", [Date()])
                firstDone.store(true, ordering: .releasing)
            }
            // Waits (off the task pool) until the first holds its transaction, then writes.
            try await offloaded { holding.wait() }
            let outcomes = try await IntakeRepository(second).accept(
                [Fixture.receipt("r-1", account: "second")], now: Fixture.t0)
            let secondAfterFirst = firstDone.load(ordering: .acquiring)
            try await long

            // Then it neither failed (busy) nor went first: it waited for the other's commit.
            #expect(outcomes.count == 1)
            #expect(secondAfterFirst, "the second write committed while the first held the lock")
            let accounts = try await second.snapshot { db in
                try await db.rows("SELECT id FROM accounts").map { try $0.get("id", as: String.self) }
            }
            #expect(Set(accounts) == ["first", "second"])
        }
    }

    @Test func aRelaxedMarkLeavesTheWriterSyncingEveryLaterCommit() async throws {
        try await withTemporaryDatabase { database in
            _ = try await IntakeRepository(database).accept([Fixture.receipt("r-1", account: "a")], now: Fixture.t0)
            try await IntakeRepository(database).markPublished(["r-1"], at: Fixture.t0)
            let settings = try database.connectionSettings()
            #expect(settings.synchronous == 2, "expected FULL after a relaxed mark, got \(settings)")
        }
    }
}
