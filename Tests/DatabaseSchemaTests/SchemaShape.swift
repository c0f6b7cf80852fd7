import Database
import Foundation
import Repositories
import SettlementWriter

/// What a schema holds, read from SQLite or PostgreSQL into one form, so that the two can
/// be compared item by item (`SchemaComparisonTests`). CHECK constraints are left out:
/// each database writes them in its own dialect (GLOB against `~`, `json_valid` against a
/// cast to `jsonb`), so equal text would prove nothing.
struct SchemaShape: Equatable {
    var tables: [String: TableShape] = [:]
}

struct TableShape: Equatable {
    var columns: [ColumnShape] = []
    var primaryKey: [String] = []
    /// UNIQUE constraints, by their columns.
    var uniques: Set<[String]> = []
    var foreignKeys: Set<ForeignKeyShape> = []
    /// Indexes made by CREATE INDEX, by name.
    var indexes: [String: IndexShape] = [:]
    var triggers: Set<String> = []
}

struct ColumnShape: Equatable {
    var name: String
    /// As the database names it: SQLite's declared type, PostgreSQL's `data_type`.
    var type: String
    var notNull: Bool
    /// The default's text, casts and quotes as both write them (`0`, `'apple'`).
    var defaultValue: String?
    /// Filled in by the database when an insert leaves it out: SQLite's rowid alias
    /// (INTEGER PRIMARY KEY), PostgreSQL's identity column.
    var generated: Bool
}

struct ForeignKeyShape: Hashable, CustomStringConvertible {
    var columns: [String]
    var table: String
    var referenced: [String]
    var onUpdate: String
    var onDelete: String

    var description: String {
        "foreign key (\(columns.joined(separator: ", "))) -> \(table)(\(referenced.joined(separator: ", "))) "
            + "on update \(onUpdate) on delete \(onDelete)"
    }
}

struct IndexShape: Equatable, CustomStringConvertible {
    var columns: [String]
    var unique: Bool
    /// A partial index's WHERE, identifiers unquoted, casts dropped, `x = ANY (ARRAY[...])`
    /// written `x IN (...)`.
    var predicate: String?

    var description: String {
        "\(unique ? "unique " : "")(\(columns.joined(separator: ", ")))" + (predicate.map { " where \($0)" } ?? "")
    }
}

extension SchemaShape {
    /// Every difference between SQLite's schema (`self`) and PostgreSQL's, each a line that
    /// names the table, column, index or trigger.
    func differences(from postgres: SchemaShape) -> Set<String> {
        var found: Set<String> = []
        for name in Set(tables.keys).union(postgres.tables.keys).sorted() {
            switch (tables[name], postgres.tables[name]) {
            case (let sqlite?, let pg?): found.formUnion(sqlite.differences(from: pg, table: name))
            case (_?, nil): found.insert("\(name): only in SQLite")
            default: found.insert("\(name): only in PostgreSQL")
            }
        }
        return found
    }

    /// SQLite's declared types, and the PostgreSQL types each may stand for. SQLite's
    /// INTEGER is 64 bits: PostgreSQL's `integer` (counts) and `bigint` (money, ids) both fit.
    static let compatibleTypes: [String: Set<String>] = [
        "TEXT": ["text"], "INTEGER": ["integer", "bigint"], "BIGINT": ["bigint"],
        "DATETIME": ["timestamp with time zone"], "BLOB": ["bytea"], "BOOLEAN": ["boolean"],
        "DOUBLE PRECISION": ["double precision"],
    ]
}

extension TableShape {
    func differences(from pg: TableShape, table: String) -> Set<String> {
        var found: Set<String> = []
        let pgColumns = Dictionary(uniqueKeysWithValues: pg.columns.map { ($0.name, $0) })
        let sqliteNames = Set(columns.map(\.name))
        for column in columns {
            guard let other = pgColumns[column.name] else {
                found.insert("\(table).\(column.name): only in SQLite")
                continue
            }
            found.formUnion(column.differences(from: other, table: table))
        }
        for column in pg.columns where !sqliteNames.contains(column.name) {
            found.insert("\(table).\(column.name): only in PostgreSQL")
        }
        let shared = columns.map(\.name).filter { pgColumns[$0] != nil }
        let pgShared = pg.columns.map(\.name).filter { sqliteNames.contains($0) }
        if shared != pgShared {
            found.insert("\(table): columns in another order: \(shared) vs \(pgShared)")
        }
        if primaryKey != pg.primaryKey {
            found.insert(
                "\(table): primary key (\(primaryKey.joined(separator: ", "))) vs (\(pg.primaryKey.joined(separator: ", ")))"
            )
        }
        for unique in uniques.subtracting(pg.uniques) {
            found.insert("\(table): unique (\(unique.joined(separator: ", "))) only in SQLite")
        }
        for unique in pg.uniques.subtracting(uniques) {
            found.insert("\(table): unique (\(unique.joined(separator: ", "))) only in PostgreSQL")
        }
        for key in foreignKeys.subtracting(pg.foreignKeys) { found.insert("\(table): \(key) only in SQLite") }
        for key in pg.foreignKeys.subtracting(foreignKeys) { found.insert("\(table): \(key) only in PostgreSQL") }
        for name in Set(indexes.keys).union(pg.indexes.keys) {
            switch (indexes[name], pg.indexes[name]) {
            case (let sqlite?, let other?) where sqlite != other:
                found.insert("index \(name): \(sqlite) vs \(other)")
            case (_?, nil): found.insert("index \(name): only in SQLite")
            case (nil, _?): found.insert("index \(name): only in PostgreSQL")
            default: break
            }
        }
        for trigger in triggers.subtracting(pg.triggers) {
            found.insert("trigger \(trigger) on \(table): only in SQLite")
        }
        for trigger in pg.triggers.subtracting(triggers) {
            found.insert("trigger \(trigger) on \(table): only in PostgreSQL")
        }
        return found
    }
}

extension ColumnShape {
    func differences(from pg: ColumnShape, table: String) -> Set<String> {
        var found: Set<String> = []
        let name = "\(table).\(self.name)"
        if type != pg.type, SchemaShape.compatibleTypes[type]?.contains(pg.type) != true {
            found.insert("\(name): type \(type) vs \(pg.type)")
        }
        if notNull != pg.notNull { found.insert("\(name): NOT NULL only in \(notNull ? "SQLite" : "PostgreSQL")") }
        if defaultValue != pg.defaultValue {
            found.insert("\(name): default \(defaultValue ?? "none") vs \(pg.defaultValue ?? "none")")
        }
        if generated != pg.generated {
            found.insert("\(name): generated only in \(generated ? "SQLite" : "PostgreSQL")")
        }
        return found
    }
}

extension IndexShape {
    /// A WHERE clause as both databases' text can be compared: `(kind = ANY
    /// (ARRAY['refund'::text, 'revoke'::text]))` and `"kind" IN ('refund', 'revoke')` are
    /// both `kind IN ('refund', 'revoke')`.
    static func normalized(predicate: String?) -> String? {
        guard var text = predicate else { return nil }
        text = text.replacingOccurrences(of: "\"", with: "")
        text = text.replacingOccurrences(of: #"::\w+"#, with: "", options: .regularExpression)
        text = text.replacingOccurrences(
            of: #"(\w+) = ANY \(ARRAY\[(.*?)\]\)"#, with: "$1 IN ($2)", options: .regularExpression)
        while text.hasPrefix("("), text.hasSuffix(")"), balanced(text.dropFirst().dropLast()) {
            text = String(text.dropFirst().dropLast())
        }
        return text
    }

    /// Whether every parenthesis opened in `text` is closed in it, in order.
    private static func balanced(_ text: Substring) -> Bool {
        var depth = 0
        for character in text {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if depth < 0 { return false }
        }
        return depth == 0
    }
}
