import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseSQLite
@testable import DatabaseTesting

/// The processes sharing one SQLite file hear each other's commits that signal a channel
/// (a datagram socket beside the file): committed ones, not rolled-back ones, not another
/// file's; one process listens at a time, and another takes over when it stops.
@Suite struct SQLiteCommitSignalsTests {
    @Test func anotherProcessesCommittedSignalsAreHeardAndRolledBackOnesAreNot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/iap.sqlite"
        let listening = try SQLiteDatabase(path: path)
        // Another process's connection to the same file.
        let writer = try SQLiteDatabase(path: path)
        let elsewhere = try SQLiteDatabase(path: directory.path + "/other.sqlite")
        let signals = try #require(listening.commitSignals)
        let heard = Heard()
        let task = Task { await signals.listen(to: .outbox) { heard.add() } }
        defer { task.cancel() }
        // Once bound, it is told to look (whatever came before it listened)
        try await heard.wait(for: 1)

        try await writer.transaction { db in try await db.signal(.outbox) }
        try await heard.wait(for: 2)

        // Rolled back, not signalled, or another file's: nothing
        await #expect(throws: Rollback.self) {
            try await writer.transaction { db in
                try await db.signal(.outbox)
                throw Rollback()
            }
        }
        try await writer.transaction { db in try await db.execute("SELECT 1") }
        try await elsewhere.transaction { db in try await db.signal(.outbox) }
        // A datagram on this machine arrives at once: anything of those would be here by now.
        try await Task.sleep(for: .milliseconds(300))
        #expect(heard.count == 2)

        // A credit that writes webhooks signals them
        _ = try await IntakeRepository(writer).accept([Fixture.receipt("r1", account: "a1")], now: Fixture.t0)
        _ = try await SettlementRepository(writer).apply(
            [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: Fixture.catalog, now: Fixture.t0)
        try await heard.wait(for: 3)
    }

    @Test func oneProcessListensAtATimeAndAnotherTakesOverWhenItStops() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/iap.sqlite"
        let first = try SQLiteDatabase(path: path)
        let second = try SQLiteDatabase(path: path)
        let heardFirst = Heard()
        let heardSecond = Heard()
        let firstTask = Task { await first.listen(to: .outbox) { heardFirst.add() } }
        try await heardFirst.wait(for: 1)
        let secondTask = Task { await second.listen(to: .outbox) { heardSecond.add() } }
        defer { secondTask.cancel() }
        try await Task.sleep(for: .milliseconds(300))
        #expect(heardSecond.count == 0, "two processes bound the same socket")

        try await second.transaction { db in try await db.signal(.outbox) }
        try await heardFirst.wait(for: 2)

        // The first stops (or dies: the kernel lets go of its lock); the second binds anew
        firstTask.cancel()
        await firstTask.value
        try await heardSecond.wait(for: 1)
        try await first.transaction { db in try await db.signal(.outbox) }
        try await heardSecond.wait(for: 2)
        #expect(heardFirst.count == 2)
    }

    @Test func aPathTooLongForASocketsNameHasNoSignalsAndItsNotifiersPoll() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let deep = (directory.path + "/" + String(repeating: "d", count: 90))
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        let database = try SQLiteDatabase(path: deep + "/iap.sqlite")
        #expect(database.commitSignals == nil)
        #expect(try SQLiteDatabase(path: directory.path + "/iap.sqlite").commitSignals != nil)
    }

    @Test func aProcessThatCannotListenKnowsWhetherAnotherListensOrTheSocketFailed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = CommitBell.socketPath(directory.path + "/iap.sqlite", .outbox)
        let address = try #require(UnixSocketAddress(path: path))
        // A directory where the socket goes: the lock is taken, the bind fails, and why is said.
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        guard case .failure(.cannotBind(let reason)) = SignalListener.open(path: path, address: address) else {
            Issue.record("bound over a directory")
            return
        }
        #expect(!reason.isEmpty)
        try FileManager.default.removeItem(atPath: path)
        // Bound, then asked again: the lock is held, so another listens (nothing to report).
        let listener = try SignalListener.open(path: path, address: address).get()
        guard case .failure(.otherListens) = SignalListener.open(path: path, address: address) else {
            Issue.record("a second listener while the first holds the lock")
            return
        }
        withExtendedLifetime(listener) {}
    }

    private struct Rollback: Error {}
}
