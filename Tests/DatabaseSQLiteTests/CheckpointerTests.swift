import Database
import Foundation
import Glibc
import PipelineTesting
import SettlementWriter
import Testing

@testable import DatabaseSQLite
@testable import Repositories

/// The WAL is copied back into the database file by the checkpointer's own connection, not
/// inside a commit and not under the processes' write lock; a commit checkpoints itself only
/// past the backstop.
@Suite struct CheckpointerTests {
    @Test func theCheckpointerCopiesTheWALBackWhileAnotherProcessHoldsTheWriteLock() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let path = directory.path + "/pipeline.sqlite"
            let database = try SQLiteDatabase(
                path: path, configuration: StoreConfiguration(), checkpointer: Checkpointer(path: path))
            let before = try fileSize(path)
            // Held back, so that whatever reaches the file meanwhile was copied by a commit.
            database.checkpointer.queue.suspend()
            var suspended = true
            // Dispatch traps on releasing a queue that is suspended.
            defer { if suspended { database.checkpointer.queue.resume() } }
            // About 3,000 pages: three times SQLite's own automatic checkpoint, under the backstop.
            for _ in 0..<3 { try await insertRows(database, count: 1_000) }
            #expect(try fileSize(path) == before, "a commit checkpointed (SQLite's automatic checkpoint)")

            // Another process holds the write lock; the checkpoint does not need it.
            let lock = open(path + ".write-lock", O_RDWR | O_CLOEXEC)
            #expect(lock >= 0)
            defer { close(lock) }
            #expect(flock(lock, LOCK_EX) == 0)
            database.checkpointer.queue.resume()
            suspended = false
            let grown = try await eventually(timeout: .seconds(20)) { try fileSize(path) > before + 8_000_000 }
            #expect(grown, "the database file did not take the WAL's pages while the write lock was held")
            // Counted once the checkpoint has returned, a moment after its last page is copied.
            #expect(await eventually(timeout: .seconds(20)) { database.checkpointer.checkpointsRun >= 1 })
            flock(lock, LOCK_UN)

            // Once copied, the WAL starts over: more rounds leave it no larger than the first did.
            let walAfterFirst = try fileSize(path + "-wal")
            for _ in 3..<6 {
                try await insertRows(database, count: 200)
                _ = await eventually(timeout: .seconds(20)) { database.checkpointer.isIdle }
            }
            #expect(try fileSize(path + "-wal") <= walAfterFirst)
            let count = try await database.snapshot { db in
                try await db.rows("SELECT count(*) AS n FROM bulk")[0].get("n", as: Int.self)
            }
            #expect(count == 3_600)
        }
    }

    @Test func aCommitPastTheBackstopCheckpointsItselfWhenTheCheckpointerCannot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let path = directory.path + "/pipeline.sqlite"
            // A backstop of 200 pages (800 KiB).
            let database = try SQLiteDatabase(
                path: path, configuration: StoreConfiguration(), checkpointer: Checkpointer(path: path, threshold: 20))
            // The schema's own commits passed the threshold; those checkpoints finish first.
            _ = await eventually(timeout: .seconds(20)) { database.checkpointer.isIdle }
            let ran = database.checkpointer.checkpointsRun
            let before = try fileSize(path)
            database.checkpointer.queue.suspend()
            defer { database.checkpointer.queue.resume() }
            try await insertRows(database, count: 300)
            try await insertRows(database, count: 1)
            #expect(try fileSize(path) > before + 1_000_000, "the WAL passed the backstop and nothing was copied")
            #expect(database.checkpointer.checkpointsRun == ran)
        }
    }

    /// `count` rows of a page each, in one transaction.
    private func insertRows(_ database: SQLiteDatabase, count: Int) async throws {
        let body = String(repeating: "x", count: 3_900)
        try await database.transaction { db in
            try await db.execute("CREATE TABLE IF NOT EXISTS bulk (body TEXT NOT NULL)", [])
            for _ in 0..<count { try await db.execute("INSERT INTO bulk (body) VALUES (?)", [body]) }
        }
    }

    private func fileSize(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }
}
