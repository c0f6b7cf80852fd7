import Database
import Foundation
import Repositories
import SettlementWriter

extension SchemaShape {
    /// SQLite's schema, through its pragmas (`table_info`, `index_list`, `index_info`,
    /// `foreign_key_list`), leaving out `tables` that are bookkeeping.
    static func sqlite(_ database: any SQLDatabase, leavingOut bookkeeping: Set<String>) async throws -> SchemaShape {
        try await database.snapshot { db in
            var shape = SchemaShape()
            let tables = try await db.rows(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            ).map { try $0.get("name", as: String.self) }.filter { !bookkeeping.contains($0) }
            for table in tables {
                var shapeOfTable = TableShape()
                let columns = try await db.rows("SELECT * FROM pragma_table_info(?) ORDER BY cid", [table])
                let keyColumns = try columns.filter { try $0.get("pk", as: Int.self) > 0 }
                    .sorted { try $0.get("pk", as: Int.self) < $1.get("pk", as: Int.self) }
                shapeOfTable.primaryKey = try keyColumns.map { try $0.get("name", as: String.self) }
                for column in columns {
                    let type = try column.get("type", as: String.self)
                    let key = try column.get("pk", as: Int.self)
                    let declaredNotNull = try column.get("notnull", as: Int.self) == 1
                    // INTEGER PRIMARY KEY is the rowid: never NULL, chosen by SQLite when left out.
                    let rowid = type == "INTEGER" && keyColumns.count == 1 && key == 1
                    shapeOfTable.columns.append(
                        ColumnShape(
                            name: try column.get("name"), type: type, notNull: rowid || declaredNotNull,
                            defaultValue: try column.get("dflt_value", as: String?.self), generated: rowid))
                }
                for index in try await db.rows("SELECT * FROM pragma_index_list(?)", [table]) {
                    let name = try index.get("name", as: String.self)
                    let columns = try await db.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [name])
                        .map { try $0.get("name", as: String.self) }
                    switch try index.get("origin", as: String.self) {
                    case "pk": continue
                    case "u": shapeOfTable.uniques.insert(columns)
                    default:
                        let sql = try await db.value(
                            "SELECT sql FROM sqlite_master WHERE name = ?", [name], as: String.self)
                        let predicate = sql?.range(of: " WHERE ").map { String(sql![$0.upperBound...]) }
                        shapeOfTable.indexes[name] = IndexShape(
                            columns: columns, unique: try index.get("unique", as: Int.self) == 1,
                            predicate: IndexShape.normalized(predicate: predicate))
                    }
                }
                let keys = try await db.rows("SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq", [table])
                for id in Set(try keys.map { try $0.get("id", as: Int.self) }) {
                    let parts = try keys.filter { try $0.get("id", as: Int.self) == id }
                    let first = parts[0]
                    shapeOfTable.foreignKeys.insert(
                        ForeignKeyShape(
                            columns: try parts.map { try $0.get("from") }, table: try first.get("table"),
                            referenced: try parts.map { try $0.get("to") }, onUpdate: try first.get("on_update"),
                            onDelete: try first.get("on_delete")))
                }
                shapeOfTable.triggers = await Set(
                    try db.rows("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", [table])
                        .map { try $0.get("name", as: String.self) })
                shape.tables[table] = shapeOfTable
            }
            return shape
        }
    }

    /// PostgreSQL's schema `public`, through `information_schema` and `pg_catalog`, leaving
    /// out `tables` that are bookkeeping.
    static func postgres(_ database: any SQLDatabase, leavingOut bookkeeping: Set<String>) async throws -> SchemaShape {
        try await database.snapshot { db in
            var shape = SchemaShape()
            for column in try await db.rows(
                """
                SELECT table_name::text AS table_name, column_name::text AS column_name, data_type::text AS data_type,
                  is_nullable::text AS is_nullable, column_default::text AS column_default,
                  is_identity::text AS is_identity
                FROM information_schema.columns c
                WHERE table_schema = 'public' AND EXISTS (
                  SELECT 1 FROM information_schema.tables t
                  WHERE t.table_schema = 'public' AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE')
                ORDER BY table_name, ordinal_position
                """)
            {
                let table = try column.get("table_name", as: String.self)
                guard !bookkeeping.contains(table) else { continue }
                let defaultValue = try column.get("column_default", as: String?.self)
                shape.tables[table, default: TableShape()].columns.append(
                    ColumnShape(
                        name: try column.get("column_name"), type: try column.get("data_type"),
                        notNull: try column.get("is_nullable", as: String.self) == "NO",
                        defaultValue: defaultValue?.replacingOccurrences(
                            of: #"::[a-z ]+$"#, with: "", options: .regularExpression),
                        generated: try column.get("is_identity", as: String.self) == "YES"))
            }
            for constraint in try await db.rows(
                """
                SELECT c.conrelid::regclass::text AS table_name, c.contype::text AS kind,
                  c.confrelid::regclass::text AS referenced_table,
                  c.confupdtype::text AS on_update, c.confdeltype::text AS on_delete,
                  array_to_string(ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i), ',') AS columns,
                  array_to_string(ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i), ',')
                    AS referenced
                FROM pg_constraint c
                WHERE c.connamespace = 'public'::regnamespace AND c.contype IN ('p', 'u', 'f')
                """)
            {
                let table = try constraint.get("table_name", as: String.self)
                guard shape.tables[table] != nil else { continue }
                let columns = try texts(constraint, "columns")
                switch try constraint.get("kind", as: String.self) {
                case "p": shape.tables[table]?.primaryKey = columns
                case "u": shape.tables[table]?.uniques.insert(columns)
                default:
                    shape.tables[table]?.foreignKeys.insert(
                        ForeignKeyShape(
                            columns: columns, table: try constraint.get("referenced_table"),
                            referenced: try texts(constraint, "referenced"),
                            onUpdate: action(try constraint.get("on_update")),
                            onDelete: action(try constraint.get("on_delete"))))
                }
            }
            // Indexes that no PRIMARY KEY or UNIQUE constraint made.
            for index in try await db.rows(
                """
                SELECT t.relname::text AS table_name, i.relname::text AS name, x.indisunique AS is_unique,
                  pg_get_expr(x.indpred, x.indrelid) AS predicate,
                  array_to_string(ARRAY(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(n, o)
                    JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n ORDER BY k.o), ',') AS columns
                FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
                WHERE t.relnamespace = 'public'::regnamespace AND NOT EXISTS (
                  SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.contype IN ('p', 'u'))
                """)
            {
                let table = try index.get("table_name", as: String.self)
                guard shape.tables[table] != nil else { continue }
                shape.tables[table]?.indexes[try index.get("name")] = IndexShape(
                    columns: try texts(index, "columns"), unique: try index.get("is_unique", as: Bool.self),
                    predicate: IndexShape.normalized(predicate: try index.get("predicate", as: String?.self)))
            }
            for trigger in try await db.rows(
                """
                SELECT DISTINCT trigger_name::text AS name, event_object_table::text AS table_name
                FROM information_schema.triggers WHERE trigger_schema = 'public'
                """)
            {
                let table = try trigger.get("table_name", as: String.self)
                shape.tables[table]?.triggers.insert(try trigger.get("name"))
            }
            return shape
        }
    }

    /// Column names joined by commas (none holds one).
    private static func texts(_ row: SQLRow, _ column: String) throws -> [String] {
        try row.get(column, as: String.self).split(separator: ",").map(String.init)
    }

    /// PostgreSQL's one-letter referential actions, in SQLite's words.
    private static func action(_ code: String) -> String {
        ["a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"][code] ?? code
    }
}
