import Database
import DatabaseSchema
import Foundation
import PipelineTesting
import SettlementWriter
import Testing

@testable import DatabasePostgres
@testable import DatabaseSQLite
@testable import Repositories

/// What the release before one schema history left behind opens in this one: a SQLite file
/// at v9 and a PostgreSQL database at its schema 6, both with books in them
/// (`SchemaFixtures/README.md`). Each reaches version 9, compares equal to a fresh one,
/// keeps every row, and balances.
@Suite struct SchemaUpgradeTests {
    static let fixtures = SchemaHistoryTests.fixtures

    @Test func aV9FileFromThePreviousReleaseOpensWithEveryRowAndBalancedBooks() async throws {
        // Given the previous release's file, and what it holds
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"
        try FileManager.default.copyItem(
            atPath: Self.fixtures.appendingPathComponent("pipeline-v9.sqlite").path, toPath: path)
        let before = try await Self.sqliteRows(path)
        #expect(before["ledger_entries"]?.count == 5 && before["notification_outbox"]?.count == 6)
        #expect(before["accounts"]?.count == 3 && before["balances"]?.count == 2)

        // When this program opens it
        let database = try SQLiteDatabase(path: path)

        // Then it is at the latest version, as a fresh file is, to the byte
        let freshPath = directory.path + "/fresh.sqlite"
        _ = try SQLiteDatabase(path: freshPath)
        #expect(try await SchemaHistoryTests.master(path) == SchemaHistoryTests.master(freshPath))

        // And every row is as it was, under v10's table names, with v11's empty trace
        // columns, v13's Google acknowledgements (none) among the store confirmations, v14's
        // steps, v15's apps of confirmations (none) and v16's and v17's indexes (v10 to v18 the only
        // migrations recorded since), v18's apps (the default app's, every row), and the books balance
        var expected = Self.appsByV18(Self.steppedByV14(Self.movedByV13(Self.tracedByV11(Self.renamedByV10(before)))))
        expected["grdb_migrations", default: []] += [
            ["identifier": .text("v10")], ["identifier": .text("v11")], ["identifier": .text("v12")],
            ["identifier": .text("v13")], ["identifier": .text("v14")], ["identifier": .text("v15")],
            ["identifier": .text("v16")], ["identifier": .text("v17")], ["identifier": .text("v18")],
            ["identifier": .text("v19")], ["identifier": .text("v20")], ["identifier": .text("v21")],
            ["identifier": .text("v22")],
        ]
        #expect(try await Self.sqliteRows(path) == expected)
        #expect(try await LedgerRepository(database).audit() == [])
        #expect(try await LedgerRepository(database).account(id: "player-2")?.balances == ["coins": 150])
    }

    @Test func aSchema6DatabaseFromThePreviousReleaseIsRenumberedWithEveryRowAndBalancedBooks() async throws {
        let fresh = try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            return try await Self.postgresCatalog(database)
        }
        try await PostgresFixture.withDatabase { database in
            // Given the previous release's database, and what it holds
            try await Self.load("postgres-schema6.sql", into: database)
            let before = try await Self.postgresRows(database)
            #expect(before["ledger_entries"]?.count == 5 && before["notification_outbox"]?.count == 6)
            let old = try await database.snapshot { db in
                try await db.rows("SELECT version, applied_at FROM iap_schema_migrations ORDER BY version")
            }
            #expect(old.count == 6)
            // Its old version 6 is this program's 9: the same schema.
            #expect(try await database.schemaVersion() == 9)

            // When it is migrated, twice
            try await database.migrate()
            try await database.migrate()

            // Then it is at 9, numbered as a fresh database is: 4-9 are the old 1-6, and 1-3
            // (SQLite's alone) count from the old first step; the old table is gone
            let versions = try await database.snapshot { db in
                try await db.rows("SELECT version, applied_at FROM schema_migrations ORDER BY version")
            }
            #expect(try versions.map { try $0.get("version", as: Int.self) } == Schema.migrations.map(\.version))
            #expect(versions.dropFirst(3).prefix(6).map(\.columns["applied_at"]) == old.map(\.columns["applied_at"]))
            #expect(versions.prefix(3).allSatisfy { $0.columns["applied_at"] == old[0].columns["applied_at"] })
            let oldTable = try await database.snapshot { db in
                try await db.value("SELECT to_regclass('iap_schema_migrations')::text AS name", as: String?.self)
            }
            #expect(oldTable == .some(nil))
            #expect(try await database.schemaVersion() == Schema.latestVersion)

            // And its schema is a fresh database's, constraints included
            let catalog = try await Self.postgresCatalog(database)
            #expect(catalog.subtracting(fresh).isEmpty, "only here: \(catalog.subtracting(fresh).sorted())")
            #expect(fresh.subtracting(catalog).isEmpty, "only in a fresh one: \(fresh.subtracting(catalog).sorted())")

            // And every row is as it was (under v10's table names, v11's trace columns empty,
            // v13's Google acknowledgements, none, among the store confirmations, v14's steps), and
            // the books balance
            #expect(
                try await Self.postgresRows(database)
                    == Self.appsByV18(
                        Self.steppedByV14(Self.movedByV13(Self.tracedByV11(Self.renamedByV10(before))), sqlite: false)))
            #expect(try await LedgerRepository(database).audit() == [])
            #expect(try await LedgerRepository(database).account(id: "player-2")?.balances == ["coins": 150])
        }
    }

    @Test(arguments: 1...5)
    func aDatabaseAtAnOlderPostgreSQLVersionIsRenumberedAndBroughtUpToDate(old: Int) async throws {
        let fresh = try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            return try await Self.postgresCatalog(database)
        }
        try await PostgresFixture.withDatabase { database in
            // Given a database as the previous releases left it at their version `old`: their
            // statements (unified versions 4 to old + 3), recorded the old way
            try await database.transaction { db in
                for migration in Schema.migrations where migration.version <= old + 3 {
                    for statement in migration.postgres { try await db.execute(statement) }
                }
                try await db.execute(
                    """
                    CREATE TABLE iap_schema_migrations (
                      version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                    """)
                for version in 1...old {
                    try await db.execute("INSERT INTO iap_schema_migrations (version) VALUES (?)", [version])
                }
            }
            #expect(try await database.schemaVersion() == old + 3)

            // When it is migrated
            try await database.migrate()

            // Then it is at the latest version with a fresh database's schema
            #expect(try await database.schemaVersion() == Schema.latestVersion)
            #expect(try await Self.postgresCatalog(database) == fresh)
        }
    }

    @Test func anOldNumberBeyondWhatThisProgramKnowsIsRefusedAndLeftAsItIs() async throws {
        try await PostgresFixture.withDatabase { database in
            try await Self.load("postgres-schema6.sql", into: database)
            // Old 97 is new 100: beyond this program's latest.
            try await database.execute("INSERT INTO iap_schema_migrations (version) VALUES (97)")
            await #expect {
                try await database.migrate()
            } throws: { error in
                "\(error)".contains("newer version") && "\(error)".contains("schema 100")
            }
            let old = try await database.snapshot { db in
                try await db.value("SELECT count(*) AS n FROM iap_schema_migrations", as: Int.self)
            }
            #expect(old == 7)
        }
    }
}

extension SchemaUpgradeTests {
    /// `rows` of a database before v10, as v10 leaves them: the store-neutral names, and
    /// no confirmation owed yet.
    static func renamedByV10(_ rows: [String: [[String: SQLValue]]]) -> [String: [[String: SQLValue]]] {
        let renames = ["apple_notifications": "store_notifications", "apple_transactions": "store_transactions"]
        var renamed = Dictionary(uniqueKeysWithValues: rows.map { (renames[$0.key] ?? $0.key, $0.value) })
        renamed["store_confirmations"] = []
        renamed["google_refund_reviews"] = []
        return renamed
    }

    /// `rows` as v11 leaves them: receipts and webhooks with no trace context.
    static func tracedByV11(_ rows: [String: [[String: SQLValue]]]) -> [String: [[String: SQLValue]]] {
        var traced = rows
        for table in ["receipts", "notification_outbox"] {
            traced[table] = rows[table]?.map { $0.merging(["traceparent": .null]) { old, _ in old } }
        }
        return traced
    }

    /// `rows` as v13 leaves them: `google_acknowledgements` gone, the fixtures' rows of it (none)
    /// in `store_confirmations` (``GoogleAcknowledgementUpgradeTests`` moves some).
    static func movedByV13(_ rows: [String: [[String: SQLValue]]]) -> [String: [[String: SQLValue]]] {
        var moved = rows
        #expect(moved.removeValue(forKey: "google_acknowledgements")?.isEmpty != false)
        return moved
    }

    /// `rows` as v14 leaves them: each debit and write-off its transaction's step 1, every
    /// other entry step 0. SQLite's rebuilt `ledger_entries` takes a new `sqlite_sequence`
    /// row, last.
    /// v18's `app` of each token, notification and store transaction: the default app's
    /// (`''`) for every row of a release before apps, whose accounts are all bare.
    static func appsByV18(_ rows: [String: [[String: SQLValue]]]) -> [String: [[String: SQLValue]]] {
        var owned = rows
        for table in ["app_account_tokens", "store_notifications", "store_transactions"] {
            owned[table] = rows[table]?.map { $0.merging(["app": .text("")]) { old, _ in old } }
        }
        return relaysByV19(owned)
    }

    /// v19: receipts and notifications written before name no relay (any relay's to publish),
    /// and no relay has said it is alive.
    static func relaysByV19(_ rows: [String: [[String: SQLValue]]]) -> [String: [[String: SQLValue]]] {
        var relayed = rows
        for table in ["receipts", "store_notifications"] {
            relayed[table] = rows[table]?.map { $0.merging(["relay": .null]) { old, _ in old } }
        }
        relayed["relays"] = []
        return offersByV20(relayed)
    }

    /// v20: transactions recorded before name no offer.
    static func offersByV20(_ rows: [String: [[String: SQLValue]]]) -> [String: [[String: SQLValue]]] {
        var offered = rows
        offered["store_transactions"] = rows["store_transactions"]?.map {
            $0.merging(["offer_type": .null, "offer_id": .null]) { old, _ in old }
        }
        // v21: the revenue ledger starts empty.
        offered["revenue_entries"] = []
        offered["revenue_days"] = []
        return offered
    }

    static func steppedByV14(_ rows: [String: [[String: SQLValue]]], sqlite: Bool = true)
        -> [String: [[String: SQLValue]]]
    {
        var stepped = rows
        stepped["ledger_entries"] = rows["ledger_entries"]?.map { row in
            let taken = ["refund", "revoke", "write_off"].map(SQLValue.text).contains(row["kind"] ?? .null)
            return row.merging(["step": .integer(taken ? 1 : 0)]) { old, _ in old }
        }
        if sqlite, let sequence = rows["sqlite_sequence"] {
            let ledger: [SQLValue] = [.text("ledger_entries")]
            stepped["sqlite_sequence"] =
                sequence.filter { !ledger.contains($0["name"] ?? .null) }
                + sequence.filter { ledger.contains($0["name"] ?? .null) }
        }
        return stepped
    }

    /// Every row of every table, in rowid order, as SQLite stores it, read without migrating.
    static func sqliteRows(_ path: String) async throws -> [String: [[String: SQLValue]]] {
        try await SQLiteFile(path: path).snapshot { db in
            var rows: [String: [[String: SQLValue]]] = [:]
            for table in try await db.rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
                let name = try table.get("name", as: String.self)
                rows[name] = try await db.rows("SELECT * FROM \"\(name)\" ORDER BY rowid").map(\.columns)
            }
            return rows
        }
    }

    /// Every row of every table but the migrators' records, in one order.
    static func postgresRows(_ database: any SQLDatabase) async throws -> [String: [[String: SQLValue]]] {
        try await database.snapshot { db in
            let tables = try await db.rows(
                """
                SELECT table_name::text AS name FROM information_schema.tables
                WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
                  AND table_name NOT IN ('schema_migrations', 'iap_schema_migrations')
                """)
            var rows: [String: [[String: SQLValue]]] = [:]
            for table in try tables.map({ try $0.get("name", as: String.self) }) {
                rows[table] = try await db.rows("SELECT * FROM \(table) t ORDER BY t::text").map(\.columns)
            }
            return rows
        }
    }

    /// PostgreSQL's schema as lines: columns, constraints (CHECKs included), indexes,
    /// triggers, functions. The migrators' records are left out.
    static func postgresCatalog(_ database: any SQLDatabase) async throws -> Set<String> {
        try await database.snapshot { db in
            let queries = [
                """
                SELECT concat_ws(' ', table_name, column_name, ordinal_position, data_type, is_nullable,
                  column_default, is_identity, identity_generation) AS line
                FROM information_schema.columns WHERE table_schema = 'public'
                  AND table_name NOT IN ('schema_migrations', 'iap_schema_migrations')
                """,
                """
                SELECT concat_ws(' ', conrelid::regclass::text, conname, pg_get_constraintdef(oid)) AS line
                FROM pg_constraint WHERE connamespace = 'public'::regnamespace
                  AND conrelid::regclass::text NOT IN ('schema_migrations', 'iap_schema_migrations')
                """,
                """
                SELECT indexdef AS line FROM pg_indexes WHERE schemaname = 'public'
                  AND tablename NOT IN ('schema_migrations', 'iap_schema_migrations')
                """,
                """
                SELECT concat_ws(' ', trigger_name, event_manipulation, event_object_table, action_timing,
                  action_statement) AS line
                FROM information_schema.triggers WHERE trigger_schema = 'public'
                """,
                """
                SELECT pg_get_functiondef(p.oid) AS line FROM pg_proc p
                WHERE p.pronamespace = 'public'::regnamespace
                """,
            ]
            var lines: Set<String> = []
            for query in queries {
                for row in try await db.rows(query) { lines.insert(try row.get("line", as: String.self)) }
            }
            return lines
        }
    }

    static func load(_ fixture: String, into database: PostgresPipelineDatabase) async throws {
        try await PostgresFixture.restore(Self.fixtures.appendingPathComponent(fixture), into: database)
    }
}
