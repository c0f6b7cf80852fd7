import Database
import Foundation
import Logging
import NIOCore
import PostgresNIO
import SettlementWriter
import Synchronization

/// A ``SQLSession`` over one pooled PostgreSQL connection, inside a transaction the database
/// opened: each statement is one round trip, awaited (`PostgresConnection.answer(to:logger:)`).
struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger
    /// Where a transaction learns that its server may no longer be the primary.
    let sign: FailoverSign?
    /// How long one statement may go unanswered before its connection is given up.
    let deadline: Duration
    /// Names savepoints apart when they nest.
    private let depth: Int

    init(
        connection: PostgresConnection, logger: Logger, sign: FailoverSign? = nil, deadline: Duration, depth: Int = 0
    ) {
        self.connection = connection
        self.logger = logger
        self.sign = sign
        self.deadline = deadline
        self.depth = depth
    }

    var dialect: SQLDialect { .postgres }

    @discardableResult func execute(_ sql: String, _ arguments: SQLArguments) async throws -> Int {
        try await result(sql, arguments.storableValues()).metadata.rows ?? 0
    }

    func rows(_ sql: String, _ arguments: SQLArguments) async throws -> [SQLRow] {
        try await run(sql, arguments.storableValues()).map(Self.row)
    }

    func savepoint<T>(_ body: () async throws -> T) async throws -> T {
        let name = "iap_savepoint_\(depth)"
        _ = try await run("SAVEPOINT \(name)", [])
        do {
            let result = try await body()
            _ = try await run("RELEASE SAVEPOINT \(name)", [])
            return result
        } catch {
            _ = try await run("ROLLBACK TO SAVEPOINT \(name)", [])
            throw error
        }
    }

    /// Advisory transaction locks, taken in one order so that two sessions locking the same
    /// keys do not deadlock; released at commit or rollback. One statement for all of them:
    /// a round trip each was a third of a fulfiller's statements.
    func lock(_ keys: [String]) async throws {
        let sorted = Set(keys).sorted()
        guard !sorted.isEmpty else { return }
        // The keys come back sorted, and the function runs on each row in that order.
        let rows = sorted.map { _ in "(?)" }.joined(separator: ", ")
        _ = try await run(
            """
            SELECT pg_advisory_xact_lock(hashtextextended(key, 0))
            FROM (SELECT key FROM (VALUES \(rows)) AS keys(key) ORDER BY key OFFSET 0) AS ordered
            """, sorted.map { .text($0) })
    }

    func stored(_ date: Date) -> SQLValue { .date(date) }

    /// Delivered by the server at commit; several in one transaction are delivered once.
    func signal(_ channel: CommitChannel) async throws {
        _ = try await run("NOTIFY \(channel.rawValue)")
    }

    /// Runs one statement and returns its rows.
    func run(_ sql: String, _ values: [SQLValue] = []) async throws -> [PostgresRow] {
        try await result(sql, values).rows
    }

    /// Runs one statement, its `?` placeholders numbered as PostgreSQL's `$1`, `$2`, ...
    private func result(_ sql: String, _ values: [SQLValue]) async throws -> PostgresQueryResult {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: binds.appendNull()
            case .integer(let number): binds.append(number)
            case .real(let number): binds.append(number)
            case .text(let text): binds.append(text)
            case .blob(let bytes): binds.append(ByteBuffer(bytes: bytes))
            case .date(let date): binds.append(date)
            case .bool(let flag): binds.append(flag)
            }
        }
        let query = PostgresQuery(unsafeSQL: Self.numbered(sql), binds: binds)
        do {
            return try await connection.answer(to: query, deadline: deadline, logger: logger)
        } catch let error as PSQLError {
            let translated = Self.translate(error)
            if case .unreachable = translated { sign?.note() }
            if error.serverInfo?[.sqlState] == Self.readOnly { sign?.note() }
            throw translated
        } catch {
            if case SQLError.unreachable = error { sign?.note() }
            throw error
        }
    }

    /// SQLSTATE 25006, read_only_sql_transaction: a standby, or a primary since demoted.
    static let readOnly = "25006"
    /// SQLSTATE 57014, query_canceled: an operator's cancel, or a `statement_timeout` of the role's.
    static let queryCanceled = "57014"
    /// SQLSTATE 55P03, lock_not_available: `lock_timeout`.
    static let lockNotAvailable = "55P03"

    /// `?` → `$n`, outside quoted strings and identifiers.
    static func numbered(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// A constraint failure, a lost race (a deadlock or a serialization failure) or anything
    /// else, as the stores handle both backends' errors.
    static func translate(_ error: PSQLError) -> SQLError {
        let message = error.serverInfo?[.message] ?? "\(error.code)"
        let state = error.serverInfo?[.sqlState] ?? ""
        if state.hasPrefix("23") { return .constraint(message) }
        if state == "40001" || state == "40P01" { return .retry(message) }
        // The session's own bounds (lock_timeout, a statement_timeout): the server is there and
        // the work is fine, it waited too long; run again later, not at once.
        if state == queryCanceled || state == lockNotAvailable { return .unavailable("PostgreSQL: \(message)") }
        // The server ended the session (an administrator, a restart, a failover) or the link
        // broke: another connection may well work.
        if state.hasPrefix("57") || state.hasPrefix("08") { return .unreachable("PostgreSQL: \(message)") }
        // A value the column cannot hold (too long, out of range, NUL, a bad date).
        if state.hasPrefix("22") { return .unstorable(message) }
        // disk_full: no write fits until space returns.
        if state == "53100" { return .full("PostgreSQL: \(message)") }
        // Out of memory or connections, an I/O error, a read-only server (a standby).
        if state.hasPrefix("53") || state.hasPrefix("58") || state.hasPrefix("XX") || state == readOnly {
            return .unavailable("PostgreSQL: \(message)")
        }
        if error.serverInfo == nil { return .unreachable("PostgreSQL: \(cause(error))") }
        return .database(message)
    }

    /// What an error that is no answer of the server's says, for the logs: postgres-nio's own
    /// description is a generic sentence, nested errors included (a connection a crashed
    /// server closed said only that).
    static func cause(_ error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] { return message }
        if let inner = error.underlying as? PSQLError { return cause(inner) }
        return error.underlying.map { "\($0)" } ?? "\(error.code)"
    }

    static func row(_ row: PostgresRow) throws -> SQLRow {
        var columns: [String: SQLValue] = [:]
        for cell in row {
            columns[cell.columnName] = try value(cell)
        }
        return SQLRow(columns)
    }

    private static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2: return .integer(Int64(try cell.decode(Int16.self)))
        case .int4: return .integer(Int64(try cell.decode(Int32.self)))
        case .int8: return .integer(try cell.decode(Int64.self))
        case .bool: return .bool(try cell.decode(Bool.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .timestamptz, .timestamp: return .date(try cell.decode(Date.self))
        case .bytea: return .blob(try cell.decode(ByteBuffer.self).readableBytesView.map { $0 })
        case .numeric:
            // SUM over BIGINT is NUMERIC: money sums stay integers.
            let number = try cell.decode(Decimal.self)
            if let integer = Int64(exactly: NSDecimalNumber(decimal: number).int64Value),
                Decimal(integer) == number
            {
                return .integer(integer)
            }
            return .real(NSDecimalNumber(decimal: number).doubleValue)
        case .void: return .null
        default: return .text(try cell.decode(String.self))
        }
    }
}

/// Set when a statement of a transaction failed because its connection broke or its server is
/// read-only: what the stores threw may wrap the error, so the transaction asks this instead.
final class FailoverSign: Sendable {
    private let seen = Atomic<Bool>(false)

    func note() { seen.store(true, ordering: .relaxed) }

    var isSeen: Bool { seen.load(ordering: .relaxed) }
}
