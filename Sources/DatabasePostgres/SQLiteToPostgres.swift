import Database
import Foundation
import SettlementWriter

/// Copies a pipeline's SQLite database into an empty, migrated PostgreSQL one, in one
/// transaction: every row of every table, in an order that satisfies the foreign keys,
/// with ledger ids kept. Either all of it lands, or nothing.
public struct SQLiteToPostgres: Sendable {
    /// The tables, parents before children.
    public static let tables = [
        "accounts", "receipts", "store_notifications", "app_account_tokens", "orders", "store_transactions",
        "ledger_entries", "revenue_entries", "revenue_days", "balances", "entitlements", "receipt_transactions",
        "notification_outbox",
        "binding_conflicts", "subscription_checks", "dead_letters", "account_flags", "reconciliation_runs",
        "consumption_consents", "consumption_answers", "manual_adjustments", "store_confirmations",
        "google_voided_polls", "google_refund_reviews",
    ]
    /// Identity columns whose values are copied as they are, then continued from.
    static let keptIdentities = [
        "ledger_entries": "id", "binding_conflicts": "id", "account_flags": "id", "reconciliation_runs": "id",
        "revenue_entries": "id",
    ]

    let source: any SQLDatabase
    let target: PostgresPipelineDatabase

    public init(from source: any SQLDatabase, to target: PostgresPipelineDatabase) {
        self.source = source
        self.target = target
    }

    /// Rows per table, as one side holds them.
    public typealias Counts = [String: Int]

    /// Reads SQLite a page of `pageSize` rows at a time, in the order they were written (so
    /// that PostgreSQL's own ids follow it), and writes each page in as few statements as
    /// PostgreSQL's limit on arguments allows: memory holds one page, whatever the file's size.
    /// The pages are snapshots of their own, so the stages must be stopped (as the docs say);
    /// the counts and audits that follow show a copy that missed a write.
    ///
    /// - Throws: ``SQLiteToPostgresError/targetNotEmpty(_:)`` when PostgreSQL already holds
    ///   rows (nothing is copied), or what either database reported.
    /// - Returns: the rows copied, per table.
    public func copy(pageSize: Int = 2000) async throws -> Counts {
        precondition(pageSize > 0, "a page holds at least one row")
        return try await target.transaction { [source] db in
            let present = try await Self.counts(db).filter { $0.value > 0 }
            guard present.isEmpty else { throw SQLiteToPostgresError.targetNotEmpty(present) }
            var copied: Counts = [:]
            for table in Self.tables {
                let types = try await Self.columnTypes(table, db)
                var after = Int64.min
                copied[table] = 0
                while true {
                    let page = try await source.snapshot { [after] db in
                        try await db.rows(
                            "SELECT rowid AS copied_rowid, * FROM \(table) WHERE rowid > ? ORDER BY rowid LIMIT ?",
                            [after, pageSize])
                    }
                    guard let last = page.last else { break }
                    try await Self.insert(page, into: table, types: types, db)
                    copied[table]! += page.count
                    after = try last.get("copied_rowid")
                }
                if let column = Self.keptIdentities[table] {
                    try await db.execute(
                        """
                        SELECT setval(pg_get_serial_sequence('\(table)', '\(column)'),
                            COALESCE((SELECT max(\(column)) FROM \(table)), 0) + 1, false)
                        """)
                }
            }
            return copied
        }
    }

    /// Rows per table in `database`.
    public static func counts(in database: any SQLDatabase) async throws -> Counts {
        try await database.snapshot { db in try await counts(db) }
    }

    static func counts(_ db: any SQLSession) async throws -> Counts {
        var counts: Counts = [:]
        for table in tables {
            counts[table] = try await db.value("SELECT COUNT(*) AS n FROM \(table)", as: Int.self) ?? 0
        }
        return counts
    }

    /// PostgreSQL's type of each column of `table`, and which are generated identities.
    private static func columnTypes(_ table: String, _ db: any SQLSession) async throws -> [String: (
        type: String, identity: Bool
    )] {
        let rows = try await db.rows(
            "SELECT column_name, data_type, is_identity FROM information_schema.columns WHERE table_name = ?",
            [table])
        var types: [String: (String, Bool)] = [:]
        for row in rows {
            types[try row.get("column_name")] = (try row.get("data_type"), try row.get("is_identity") == "YES")
        }
        return types
    }

    private static func insert(
        _ rows: [SQLRow], into table: String, types: [String: (type: String, identity: Bool)], _ db: any SQLSession
    ) async throws {
        // SQLite's columns that PostgreSQL has; an identity PostgreSQL makes itself is left out
        // unless its values are kept.
        let columns = rows[0].columns.keys.sorted().filter { name in
            guard let type = types[name] else { return false }
            return !type.identity || keptIdentities[table] == name
        }
        let values: [[(any SQLConvertible)?]] = try rows.map { row in
            try columns.map { try convert(row.columns[$0] ?? .null, to: types[$0]!.type, column: $0) }
        }
        try await db.insert(
            into: table, columns: columns, rows: values, overridingIdentity: keptIdentities[table] != nil)
    }

    /// A value as SQLite stored it, as PostgreSQL's column takes it.
    private static func convert(_ value: SQLValue, to type: String, column: String) throws -> SQLValue {
        switch (value, type) {
        case (.null, _): return .null
        case (.text(let text), "timestamp with time zone"):
            guard let date = SQLDateText.parse(text) else {
                throw SQLError.decoding("column \(column) holds '\(text)', not a time")
            }
            return .date(date)
        case (.integer(let number), "boolean"): return .bool(number != 0)
        case (.text(let text), "bytea"): return .blob(Array(text.utf8))
        default: return value
        }
    }
}

/// Why a copy into PostgreSQL did not start.
public enum SQLiteToPostgresError: Error, CustomStringConvertible {
    /// The target already holds rows: copying would mix two histories.
    case targetNotEmpty([String: Int])

    public var description: String {
        switch self {
        case .targetNotEmpty(let counts):
            "the PostgreSQL database is not empty ("
                + counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                + "): copy into a new database"
        }
    }
}
