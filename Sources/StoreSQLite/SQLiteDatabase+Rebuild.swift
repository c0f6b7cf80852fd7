import GRDB
import Store

extension SQLiteDatabase {
    /// Rebuilds `table` from its own `CREATE TABLE`, edited by `edit`: SQLite cannot alter a
    /// constraint, so a changed CHECK means a new table. Rows keep their rowids (they break
    /// ties in some orders), indexes are made again, and so are the triggers that name the
    /// table, on it or on others (SQLite re-reads them when a table is renamed, and one that
    /// names a table dropped meanwhile would fail the rename). GRDB runs migrations with
    /// foreign keys off and checks them all before it commits.
    /// - Throws: when `edit` changed nothing (the table is not as the migration expects).
    static func rebuild(table: String, in db: Database, edit: (String) -> String) throws {
        let original =
            try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table])
            ?? ""
        let edited = edit(original)
        guard edited != original else { throw DatabaseError(message: "\(table) is not as this migration expects") }
        let rebuilt = "\(table)_rebuilt"
        let create = edited.replacingOccurrences(of: "CREATE TABLE \"\(table)\"", with: "CREATE TABLE \"\(rebuilt)\"")
            .replacingOccurrences(of: "CREATE TABLE \(table) ", with: "CREATE TABLE \(rebuilt) ")
            .replacingOccurrences(of: "CREATE TABLE \(table)(", with: "CREATE TABLE \(rebuilt)(")
        let indexes = try String.fetchAll(
            db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            arguments: [table])
        let triggers = try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE ?",
            arguments: ["%\(table)%"])
        for trigger in triggers { try db.execute(sql: "DROP TRIGGER \"\(trigger["name"] as String)\"") }
        try db.execute(sql: create)
        let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")")
            .map { (row: Row) -> String in "\"\(row["name"] as String)\"" }.joined(separator: ", ")
        try db.execute(sql: "INSERT INTO \"\(rebuilt)\" (rowid, \(columns)) SELECT rowid, \(columns) FROM \"\(table)\"")
        try db.drop(table: table)
        try db.rename(table: rebuilt, to: table)
        for index in indexes { try db.execute(sql: index) }
        for trigger in triggers { try db.execute(sql: trigger["sql"] as String) }
    }
}
