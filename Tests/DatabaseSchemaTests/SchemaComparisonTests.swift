import Database
import DatabasePostgres
import DatabaseSQLite
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

/// One schema history, two databases: a fresh SQLite file and a fresh PostgreSQL database,
/// both made from ``Schema/migrations``, hold the same tables, columns, keys and indexes.
@Suite struct SchemaComparisonTests {
    /// Each migrator's own record of what ran.
    static let sqliteBookkeeping: Set<String> = ["grdb_migrations"]
    static let postgresBookkeeping: Set<String> = ["schema_migrations"]

    /// Where the two differ on purpose, and why. A difference not listed here fails the
    /// test, and so does one listed here that is gone.
    static let knownDifferences: [String: String] = [
        "receipt_transactions.seq: only in PostgreSQL":
            "SQLite orders a receipt's transactions by rowid; PostgreSQL has no rowid, so an identity column "
            + "keeps that order (SQLDialect.insertionOrder)",
        "call_budgets.name: NOT NULL only in PostgreSQL":
            "one statement for both, and SQLite's PRIMARY KEY does not imply NOT NULL (an old SQLite quirk "
            + "kept for compatibility); the store never writes a NULL name",
    ]

    @Test func aFreshSQLiteFileAndAFreshPostgreSQLDatabaseHoldTheSameSchema() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sqlite = try await SchemaShape.sqlite(
            SQLiteDatabase(path: directory.path + "/pipeline.sqlite"), leavingOut: Self.sqliteBookkeeping)
        let postgres = try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            return try await SchemaShape.postgres(database, leavingOut: Self.postgresBookkeeping)
        }

        // Both read something: a reader that saw nothing would find no difference.
        #expect(sqlite.tables.count == 27, "\(sqlite.tables.keys.sorted())")
        #expect(sqlite.tables["ledger_entries"]?.columns.count == 10)
        #expect(postgres.tables["receipts"]?.indexes.count == 4)
        for shape in [sqlite, postgres] {
            #expect(shape.tables["balances"]?.foreignKeys.map(\.table) == ["accounts"])
            // v14: once per transaction and kind by a partial index, debits once per step.
            #expect(shape.tables["ledger_entries"]?.uniques == [])
            #expect(shape.tables["ledger_entries"]?.indexes["ledger_entries_one_debit_per_step"] != nil)
            #expect(shape.tables["store_notifications"]?.triggers == ["store_notifications_id_is_not_a_receipt"])
        }

        let differences = sqlite.differences(from: postgres)
        let unexpected = differences.subtracting(Self.knownDifferences.keys)
        let gone = Set(Self.knownDifferences.keys).subtracting(differences)
        #expect(unexpected.isEmpty, "\(unexpected.sorted().joined(separator: "\n"))")
        #expect(gone.isEmpty, "listed as known, but no longer differ: \(gone.sorted())")
    }

    @Test func theComparisonSeesADifferenceAndNamesIt() async throws {
        // Given SQLite's schema, and the same with one column's NOT NULL dropped, one index
        // narrowed and one foreign key gone
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sqlite = try await SchemaShape.sqlite(
            SQLiteDatabase(path: directory.path + "/pipeline.sqlite"), leavingOut: Self.sqliteBookkeeping)
        var changed = sqlite
        changed.tables["receipts"]?.columns[1].notNull = false
        changed.tables["receipts"]?.indexes["receipts_on_account_payload"]?.columns = ["account_id"]
        changed.tables["balances"]?.foreignKeys = []

        // Then each is found, by name
        let differences = sqlite.differences(from: changed)
        #expect(differences.contains("receipts.account_id: NOT NULL only in SQLite"))
        #expect(
            differences.contains(
                "index receipts_on_account_payload: unique (account_id, payload_hash) vs unique (account_id)"))
        #expect(
            differences.contains(
                "balances: foreign key (account_id) -> accounts(id) on update NO ACTION on delete NO ACTION only in SQLite"
            ))
        #expect(differences.count == 3, "\(differences.sorted())")
    }

    @Test func predicatesReadTheSameFromBothDatabases() {
        #expect(
            IndexShape.normalized(predicate: "(kind = ANY (ARRAY['refund'::text, 'revoke'::text]))")
                == IndexShape.normalized(predicate: #""kind" IN ('refund', 'revoke')"#))
        #expect(IndexShape.normalized(predicate: "(status = 'open'::text)") == "status = 'open'")
        #expect(IndexShape.normalized(predicate: #""published_at" IS NULL"#) == "published_at IS NULL")
    }
}
