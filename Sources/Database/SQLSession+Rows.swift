import Foundation

/// Statements over many rows at once: a batch costs a few statements whatever its size
/// (one round trip each on PostgreSQL), not one or more per row.
///
/// The SQL is the same on both databases: multi-row `VALUES`, `IN (...)` lists, and
/// `UPDATE ... FROM (VALUES ...)` (SQLite 3.33 and later). A batch is cut into statements
/// as ``SQLRows`` says: to fit one statement's arguments, and on SQLite into few shapes.
extension SQLSession {
    /// Inserts `rows` into `table`, one statement per chunk.
    /// - Parameters:
    ///   - overridingIdentity: PostgreSQL only: the values given for an identity column are
    ///     kept (`OVERRIDING SYSTEM VALUE`), as a copy of another database's rows needs.
    ///   - suffix: what follows the values (`ON CONFLICT (id) DO NOTHING`, `RETURNING id`).
    /// - Returns: the rows the statements returned (with a `RETURNING` suffix).
    @discardableResult
    public func insert(
        into table: String, columns: [String], rows: [[(any SQLConvertible)?]], overridingIdentity: Bool = false,
        suffix: String = ""
    ) async throws -> [SQLRow] {
        var returned: [SQLRow] = []
        let overriding = overridingIdentity ? " OVERRIDING SYSTEM VALUE" : ""
        for chunk in SQLRows.chunks(rows, width: columns.count, dialect: dialect) {
            let sql = """
                INSERT INTO \(table) (\(columns.joined(separator: ", ")))\(overriding)
                VALUES \(SQLRows.placeholders(rows: chunk.count, width: columns.count)) \(suffix)
                """
            returned += try await self.rows(sql, chunk.flatMap { $0 })
        }
        return returned
    }

    /// Sets `columns` of the rows of `table` whose `key` is the first value of each of
    /// `rows`, to the values that follow it (and the assignments `also`): one statement per
    /// chunk.
    /// - Returns: how many rows changed.
    @discardableResult
    public func update(
        _ table: String, key: String, columns: [SQLColumn], rows: [[(any SQLConvertible)?]], also: [String] = [],
        where condition: String = ""
    ) async throws -> Int {
        var changed = 0
        let assignments =
            (columns.enumerated().map { index, column in
                "\(column.name) = \(dialect.cast("v.column\(index + 2)", to: column.type))"
            } + also).joined(separator: ", ")
        for chunk in SQLRows.chunks(rows, width: columns.count + 1, dialect: dialect) {
            changed += try await execute(
                """
                UPDATE \(table) SET \(assignments)
                FROM (VALUES \(SQLRows.placeholders(rows: chunk.count, width: columns.count + 1))) AS v
                WHERE \(table).\(key) = v.column1 \(condition)
                """, chunk.flatMap { $0 })
        }
        return changed
    }

    /// Locks the rows of `table` whose `key` is one of `keys`, in one order (the keys' bytes:
    /// `COLLATE "C"`, whatever the database's collation), before a statement that updates
    /// them. Two transactions updating overlapping rows, each in the order its plan visits
    /// them (a join's, the heap's), can each hold a row the other wants; PostgreSQL finds
    /// that deadlock only after `deadlock_timeout` (a second) and aborts one, which its
    /// stage then retries: a second added to every receipt in both batches. Locked in one
    /// order, one waits for the other instead. SQLite writes one transaction at a time.
    public func lockInKeyOrder(_ table: String, key: String, _ keys: [String]) async throws {
        guard dialect == .postgres, !keys.isEmpty else { return }
        let sorted = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        _ = try await rows(
            "SELECT \(key) FROM \(table) WHERE \(key) IN (?) ORDER BY \(key) COLLATE \"C\" FOR UPDATE",
            in: sorted)
    }

    /// The rows of `sql` for every value of `keys`: the first `IN (?)` of `sql` takes
    /// as many placeholders as a chunk of keys has (on SQLite padded to a power of two, a key
    /// repeated: ``SQLRows/lookupChunks(_:width:dialect:)``), between the arguments `before`
    /// it and those `after` it.
    public func rows(
        _ sql: String, in keys: [any SQLConvertible], before: SQLArguments = [], after: SQLArguments = []
    ) async throws -> [SQLRow] {
        var result: [SQLRow] = []
        try await forEachChunk(sql, in: keys, before: before, after: after) { result += try await rows($0, $1) }
        return result
    }

    /// Runs `sql`, which returns no rows, for every value of `keys`, as
    /// ``rows(_:in:before:after:)`` reads them (a key repeated to pad a chunk is one key of
    /// an `IN` list: nothing changes twice).
    /// - Returns: how many rows it changed.
    @discardableResult
    public func execute(
        _ sql: String, in keys: [any SQLConvertible], before: SQLArguments = [], after: SQLArguments = []
    ) async throws -> Int {
        var changed = 0
        try await forEachChunk(sql, in: keys, before: before, after: after) { changed += try await execute($0, $1) }
        return changed
    }

    private func forEachChunk(
        _ sql: String, in keys: [any SQLConvertible], before: SQLArguments, after: SQLArguments,
        _ body: (String, SQLArguments) async throws -> Void
    ) async throws {
        // The first `IN (?)` only: another list of the statement (its values in `after`) keeps its own.
        let list = sql.range(of: "IN (?)")
        for chunk in SQLRows.lookupChunks(keys, width: 1, dialect: dialect) {
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let statement = list.map { sql.replacingCharacters(in: $0, with: "IN (\(placeholders))") } ?? sql
            try await body(statement, before + chunk.map { $0 } + after)
        }
    }
}

/// A column a multi-row update sets, and its type: PostgreSQL types each column of a
/// `VALUES` list from its values, and a column of NULLs would be text.
public struct SQLColumn: Sendable {
    public var name: String
    public var type: SQLColumnType

    public init(_ name: String, _ type: SQLColumnType) {
        self.name = name
        self.type = type
    }
}

/// The types the pipeline's columns hold.
public enum SQLColumnType: Sendable {
    case text, integer, real, timestamp, boolean, blob
}

extension SQLDialect {
    /// `expression` as a value of `type`: PostgreSQL's cast; SQLite's values carry their type.
    public func cast(_ expression: String, to type: SQLColumnType) -> String {
        guard self == .postgres else { return expression }
        let name =
            switch type {
            case .text: "text"
            case .integer: "bigint"
            case .real: "double precision"
            case .timestamp: "timestamptz"
            case .boolean: "boolean"
            case .blob: "bytea"
            }
        return "\(expression)::\(name)"
    }
}

// MARK: - Records

extension SQLSession {
    /// Inserts records as rows of `table`, one column per coding key, in as few statements
    /// as their number allows.
    public func insert<Record: Encodable>(contentsOf records: [Record], into table: String, suffix: String = "")
        async throws
    {
        guard let first = records.first else { return }
        let names = try SQLRecordEncoder.columns(of: first).map(\.name)
        let rows: [[(any SQLConvertible)?]] = try records.map { try SQLRecordEncoder.columns(of: $0).map(\.value) }
        try await insert(into: table, columns: names, rows: rows, suffix: suffix)
    }

    /// Updates the rows of `table` whose `key` column holds each record's: every other
    /// column, in as few statements as their number allows. A column NULL in every record is
    /// set NULL (a `VALUES` column of NULLs has no type PostgreSQL could assign).
    public func update<Record: Encodable>(contentsOf records: [Record], in table: String, key: String = "id")
        async throws
    {
        guard !records.isEmpty else { return }
        let encoded = try records.map { try SQLRecordEncoder.columns(of: $0) }
        let names = encoded[0].map(\.name)
        guard let keyIndex = names.firstIndex(of: key) else {
            throw SQLError.decoding("a \(Record.self) has no column \(key)")
        }
        let others = names.indices.filter { $0 != keyIndex }
        var columns: [SQLColumn] = []
        var nulls: [String] = []
        var kept: [Int] = []
        for index in others {
            if let type = encoded.lazy.compactMap({ $0[index].value.columnType }).first {
                columns.append(SQLColumn(names[index], type))
                kept.append(index)
            } else {
                nulls.append(names[index])
            }
        }
        let rows: [[(any SQLConvertible)?]] = encoded.map { row in [row[keyIndex].value] + kept.map { row[$0].value } }
        try await update(
            table, key: key, columns: columns, rows: rows, also: nulls.map { "\($0) = NULL" })
    }
}

extension SQLValue {
    /// The column type a value stands for; nil for NULL.
    var columnType: SQLColumnType? {
        switch self {
        case .null: nil
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        case .date: .timestamp
        case .bool: .boolean
        }
    }
}
