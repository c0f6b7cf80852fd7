import Database
import Foundation
import GRDB
import PipelineCore
import SettlementWriter
import Synchronization

/// A ``SQLSession`` over an open GRDB transaction on the SQLite file. Statements are
/// prepared once per connection and cached.
struct GRDBSession: SQLSession {
    let db: Database
    /// The channels this write transaction signalled, rung once it commits; nil in a read.
    var raised: RaisedSignals?

    var dialect: SQLDialect { .sqlite }

    @discardableResult func execute(_ sql: String, _ arguments: SQLArguments) async throws -> Int {
        try translatingErrors {
            try statement(sql, arguments).execute()
            return db.changesCount
        }
    }

    func rows(_ sql: String, _ arguments: SQLArguments) async throws -> [SQLRow] {
        try translatingErrors {
            let statement = try statement(sql, arguments)
            // GRDB steps (its errors, its transaction bookkeeping); each row is read where the
            // cursor stands, through SQLite's own calls (``Statement/row(names:)``).
            let cursor = try Row.fetchCursor(statement)
            let names = statement.columnNames
            var rows: [SQLRow] = []
            while try cursor.next() != nil { rows.append(statement.row(names: names)) }
            return rows
        }
    }

    /// SQLite keeps a savepoint on its stack after `ROLLBACK TO`: it is released either way.
    func savepoint<T>(_ body: () async throws -> T) async throws -> T {
        try translatingErrors { try db.execute(sql: "SAVEPOINT iap_savepoint") }
        do {
            let result = try await body()
            try translatingErrors { try db.execute(sql: "RELEASE SAVEPOINT iap_savepoint") }
            return result
        } catch {
            try translatingErrors {
                try db.execute(sql: "ROLLBACK TO SAVEPOINT iap_savepoint")
                try db.execute(sql: "RELEASE SAVEPOINT iap_savepoint")
            }
            throw error
        }
    }

    /// Rung by ``SQLiteDatabase`` after the commit. One raised in a savepoint rolled back is
    /// still rung: a look that finds nothing.
    func signal(_ channel: CommitChannel) async throws {
        raised?.raise(channel)
    }

    /// SQLite has one writer at a time: nothing to lock.
    func lock(_ keys: [String]) async throws {}

    /// As bound dates are (``StoredDate``): GRDB's DateFormatter was 3 % of the intake at 100/s.
    func stored(_ date: Date) -> SQLValue { .text(StoredDate.stored(date)) }

    /// The connection's prepared statement for `sql`, `arguments` bound (``Statement/bind(_:)``).
    private func statement(_ sql: String, _ arguments: SQLArguments) throws -> Statement {
        let statement = try db.cachedStatement(sql: sql)
        try statement.bind(arguments.storableValues())
        return statement
    }

    /// SQLite's errors as ``SQLError``, so that stores handle both backends alike.
    private func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw Self.translate(error)
        }
    }

    /// What an SQLite result code means for the work: a busy database is a race, a full
    /// disk or an I/O error is the database's, a constraint or a value too big is the work's.
    static func translate(_ error: DatabaseError) -> SQLError {
        let message = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_CONSTRAINT: return .constraint(message)
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .retry(message)
        case .SQLITE_TOOBIG, .SQLITE_MISMATCH, .SQLITE_RANGE: return .unstorable(message)
        case .SQLITE_FULL: return .full(message)
        case .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_NOMEM, .SQLITE_CANTOPEN, .SQLITE_PERM,
            .SQLITE_NOLFS, .SQLITE_PROTOCOL, .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_AUTH:
            return .unavailable(message)
        default: return .database(message)
        }
    }
}

extension SQLiteDatabase {
    /// Runs `body`, SQLite's errors turned into ``SQLError`` (see ``GRDBSession/translate(_:)``).
    static func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw GRDBSession.translate(error)
        }
    }

    /// ``translatingErrors(_:)`` for an async body.
    static func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw GRDBSession.translate(error)
        }
    }
}

/// The channels a transaction signalled.
final class RaisedSignals: Sendable {
    private let raised = Mutex<Set<CommitChannel>>([])

    func raise(_ channel: CommitChannel) {
        raised.withLock { _ = $0.insert(channel) }
    }

    /// Nil when none was raised.
    var channels: Set<CommitChannel>? {
        raised.withLock { $0.isEmpty ? nil : $0 }
    }
}
