import Foundation

/// One open transaction on the pipeline's database, SQLite's or PostgreSQL's: what the
/// stores write their statements against, once for both.
///
/// Statements use `?` placeholders and the SQL both databases share (`ON CONFLICT`,
/// `RETURNING`, `CASE`, `json_each`/`unnest` through ``SQLDialect``); a statement that must
/// differ asks ``dialect``. Calls are `async`: on PostgreSQL each is a round trip that
/// suspends the task and holds no thread; on SQLite the whole transaction runs on the
/// connection's own thread and a call never suspends.
public protocol SQLSession {
    var dialect: SQLDialect { get }

    /// Runs a statement that returns no rows.
    /// - Returns: how many rows it inserted, updated or deleted.
    @discardableResult func execute(_ sql: String, _ arguments: SQLArguments) async throws -> Int

    /// Runs a query and returns every row.
    func rows(_ sql: String, _ arguments: SQLArguments) async throws -> [SQLRow]

    /// Runs `body` in a savepoint: if it throws, only its changes are undone.
    func savepoint<T>(_ body: () async throws -> T) async throws -> T

    /// Holds each key until the transaction ends, so that transactions touching one key
    /// (a transaction id, an account) take turns across processes. SQLite has one writer
    /// at a time already; PostgreSQL takes advisory transaction locks, in one statement.
    func lock(_ keys: [String]) async throws

    /// A date as this database stores it: bind the result many times, convert once.
    func stored(_ date: Date) -> SQLValue

    /// Tells the listeners of `channel` (``CommitSignals``) once this transaction commits;
    /// nothing if it rolls back. Does nothing where the database has no listeners.
    func signal(_ channel: CommitChannel) async throws
}

extension SQLSession {
    public func signal(_ channel: CommitChannel) async throws {}

    @discardableResult public func execute(_ sql: String) async throws -> Int { try await execute(sql, []) }

    public func rows(_ sql: String) async throws -> [SQLRow] { try await rows(sql, []) }

    /// The first row of a query, if any.
    public func row(_ sql: String, _ arguments: SQLArguments = []) async throws -> SQLRow? {
        try await rows(sql, arguments).first
    }

    /// The first column of the first row, decoded; nil when there is no row.
    public func value<T: SQLDecodable>(_ sql: String, _ arguments: SQLArguments = [], as type: T.Type = T.self)
        async throws -> T?
    {
        guard let row = try await rows(sql, arguments).first, let column = row.columns.keys.first else { return nil }
        if row.columns.count > 1 { throw SQLError.decoding("value(_:) needs a query of one column: \(sql)") }
        return try row.get(column, as: T.self)
    }

    /// Every row as a record.
    public func records<T: Decodable>(_ type: T.Type, _ sql: String, _ arguments: SQLArguments = []) async throws
        -> [T]
    {
        try await rows(sql, arguments).map { try $0.decode(T.self) }
    }

    /// The first row as a record, if any.
    public func record<T: Decodable>(_ type: T.Type, _ sql: String, _ arguments: SQLArguments = []) async throws
        -> T?
    {
        try await rows(sql, arguments).first.map { try $0.decode(T.self) }
    }
}

/// Where the two databases' SQL differs.
public enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The column that orders `receipt_transactions` as they were written: SQLite's rowid,
    /// an identity column in PostgreSQL.
    public var insertionOrder: String {
        switch self {
        case .sqlite: "rowid"
        case .postgres: "seq"
        }
    }

    /// An aggregate joining `expression`'s values with commas.
    public func concat(_ expression: String, distinct: Bool = false) -> String {
        let argument = distinct ? "DISTINCT \(expression)" : expression
        return switch self {
        case .sqlite: "group_concat(\(argument))"
        case .postgres: "string_agg(\(argument), ',')"
        }
    }

    /// A date column as the text of its UTC hour (`2026-11-25 14`) or day (`2026-11-25`),
    /// to group by. SQLite keeps dates as `YYYY-MM-DD HH:MM:SS.SSS` in UTC.
    public func truncated(_ column: String, toHour: Bool) -> String {
        switch self {
        case .sqlite: "substr(\(column), 1, \(toHour ? 13 : 10))"
        case .postgres: "to_char(\(column) AT TIME ZONE 'UTC', '\(toHour ? "YYYY-MM-DD HH24" : "YYYY-MM-DD")')"
        }
    }
}

/// What a session throws, the same for both backends.
public enum SQLError: Error, CustomStringConvertible, Sendable {
    /// A constraint refused the change: a unique key, a check, a foreign key.
    case constraint(String)
    /// The transaction lost a race with another (a deadlock, a serialization failure, a
    /// busy database); run again as a whole, it can succeed.
    case retry(String)
    /// A row did not hold what the program expected: a stored value the read path cannot read.
    case decoding(String)
    /// A value the read path would not accept back (a date past year 9999, NUL in a text),
    /// refused before it was written.
    case unstorable(String)
    /// The server could not be reached, or the connection broke.
    case unreachable(String)
    /// The database cannot take writes for now, whatever they hold: an I/O error, a
    /// read-only server, no memory.
    case unavailable(String)
    /// The database's disk (or its quota) is full: no write fits until space returns, and
    /// then every one does as it was.
    case full(String)
    /// Anything else the database reported.
    case database(String)

    /// Who can make a failed transaction succeed, and so what to do with its work.
    public enum Blame: Sendable {
        /// Nobody: run it again as it is.
        case race
        /// The database or its host: wait, then run it again; the work itself is fine.
        case database
        /// The work: it will fail the same way every time. Isolate it; never retry it.
        case work
    }

    /// Whose fault `error` is. Errors that are not the database's (an encoding error, a
    /// refusal) come from the work being stored, so they blame the work.
    public static func blame(_ error: any Error) -> Blame {
        switch error {
        case SQLError.retry, SQLError.unreachable: .race
        case SQLError.unavailable, SQLError.full: .database
        case is CancellationError: .race
        default: .work
        }
    }

    /// Whether an error from a store is worth retrying as it is: another process held the
    /// database too long (SQLite busy), or the transaction lost a race (PostgreSQL), or the
    /// connection to the server broke.
    public static func isTransient(_ error: any Error) -> Bool {
        blame(error) == .race
    }

    /// Why the database could not take work that is fine in itself, for a stage that waits
    /// (``blame(_:)`` is `.database`, or the server is unreachable): `disk_full`,
    /// `unavailable` or `unreachable`; nil for a lost race or the work's own fault.
    public static func outage(_ error: any Error) -> String? {
        switch error {
        case SQLError.full: "disk_full"
        case SQLError.unavailable: "unavailable"
        case SQLError.unreachable: "unreachable"
        default: nil
        }
    }

    /// Whether `error` is a full disk's (``full(_:)``): the work waits for space, not a retry.
    public static func isFull(_ error: any Error) -> Bool {
        if case SQLError.full = error { true } else { false }
    }

    /// What the database said, without the kind.
    public var message: String {
        switch self {
        case .unreachable(let message), .constraint(let message), .retry(let message), .decoding(let message),
            .unstorable(let message), .unavailable(let message), .full(let message), .database(let message):
            message
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let message): "database unreachable: \(message)"
        case .constraint(let message): "constraint failed: \(message)"
        case .retry(let message): "transaction conflict, retry: \(message)"
        case .decoding(let message): "unreadable stored value: \(message)"
        case .unstorable(let message): "cannot be stored: \(message)"
        case .unavailable(let message): "database unavailable: \(message)"
        case .full(let message): "database disk full: \(message)"
        case .database(let message): message
        }
    }
}

extension SQLError {
    /// Runs `body`; a stored value it cannot read is named with `subject` ("account a1"),
    /// so that the error says what an operator must repair.
    package static func reading<T>(_ subject: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch SQLError.decoding(let message) {
            throw SQLError.decoding("\(subject()): \(message)")
        }
    }

    /// ``reading(_:_:)`` for an async body.
    package static func reading<T>(_ subject: @autoclosure () -> String, _ body: () async throws -> T) async throws -> T
    {
        do {
            return try await body()
        } catch SQLError.decoding(let message) {
            throw SQLError.decoding("\(subject()): \(message)")
        }
    }
}
