import Database
import Foundation
import GRDB
import SettlementWriter

/// An SQLite file opened as it is, on one plain connection: not migrated on open, and its
/// writes take neither this process's write gate nor the processes' write lock
/// (``FileLock``). It sees a file as another program (the `sqlite3` shell) or an earlier
/// release does, for what ``SQLiteDatabase`` cannot do: write a file in an old schema
/// before this program first opens it, read one without migrating it, or hold SQLite's
/// write lock as a writer outside this program would. Upgrade tests and drills use it; the
/// pipeline's processes open ``SQLiteDatabase``.
public struct SQLiteFile: SQLDatabase {
    private let queue: DatabaseQueue

    /// Opens (creating if needed) the file at `path`, its schema untouched.
    public init(path: String) throws {
        queue = try SQLiteDatabase.translatingErrors { try DatabaseQueue(path: path) }
    }

    /// Runs the schema's migrations (``Schema/migrations``) up to `version` and no further,
    /// as the release that stopped there left the file; those already recorded do not run again.
    public func migrate(upTo version: Int) throws {
        try SQLiteDatabase.translatingErrors { try SQLiteDatabase.migrator.migrate(queue, upTo: "v\(version)") }
    }

    /// One immediate transaction: SQLite's write lock is taken at BEGIN and held until
    /// `body` returns, however long it awaits. `priority` and `sync` do not apply: the file
    /// keeps whatever `synchronous` its connection has.
    @discardableResult
    public func transaction<T: Sendable>(
        priority: WritePriority, sync: CommitSync, _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws -> T {
        try await SQLiteDatabase.translatingErrors {
            try await queue.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    let connection = SameThread(value: db)
                    result = try CallerThreadExecutor.run { try await body(GRDBSession(db: connection.value)) }
                    return .commit
                }
                return result!
            }
        }
    }

    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) async throws -> T) async throws -> T
    {
        try await SQLiteDatabase.translatingErrors {
            try await queue.read { db in
                let connection = SameThread(value: db)
                return try CallerThreadExecutor.run { try await body(GRDBSession(db: connection.value)) }
            }
        }
    }

    public func leadership(of name: String) -> any Leadership { AlwaysLeader() }
}
