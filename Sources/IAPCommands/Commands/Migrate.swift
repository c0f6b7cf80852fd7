import ArgumentParser
import Database
import DatabasePostgres
import DatabaseSQLite
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

extension IAP {
    /// Creates or upgrades the database; every stage also does this at start on SQLite.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or upgrade the database: SQLite at IAP_DB_PATH, or PostgreSQL at IAP_DATABASE_URL.",
            discussion: """
                With IAP_DATABASE_URL (postgres://user:password@host:5432/database?sslmode=disable|prefer|require) \
                the PostgreSQL schema is brought up to date, one migrator at a time across processes; a \
                database migrated by a newer version of iap is refused and left as it is. A primary and its \
                standbys may be named together (postgres://user:password@db1:5432,db2:5432/database?\
                target_session_attrs=read-write): the migration runs on the one that accepts writes, and \
                the standbys follow it by replication.

                With --from-sqlite FILE as well, the SQLite database FILE is then copied into the empty \
                PostgreSQL database in one transaction, and both are audited: it prints the rows of each \
                table on both sides, and exits 1 if they differ or an audit finds anything.
                """)

        @Option(name: .customLong("from-sqlite"), help: "Copy this SQLite database into PostgreSQL.")
        var fromSQLite: String?

        func run() async throws {
            let settings = try PipelineSettings()
            guard let location = settings.postgres else {
                if fromSQLite != nil {
                    throw SettingError(
                        variable: "IAP_DATABASE_URL", problem: "--from-sqlite copies into PostgreSQL: set it")
                }
                _ = try await settings.openDatabase()
                print("database ready: \(settings.databasePath)")
                return
            }
            let database = PostgresPipelineDatabase(
                location: location, timeouts: settings.postgresTimeouts, longWork: true,
                logger: settings.logger("migrate"))
            do {
                try await database.migrate()
                let version = try await database.schemaVersion()
                print("database ready: \(location) (schema \(version))")
                if let fromSQLite { try await Self.copy(fromSQLite, into: database) }
                await database.close()
            } catch {
                await database.close()
                throw error
            }
        }

        /// Copies, then compares both sides' rows per table and audits both.
        static func copy(_ path: String, into target: PostgresPipelineDatabase) async throws {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ValidationError("--from-sqlite: no database at \(path)")
            }
            let source = try SQLiteDatabase(path: path)
            let copied = try await SQLiteToPostgres(from: source, to: target).copy()
            let before = try await SQLiteToPostgres.counts(in: source)
            let after = try await SQLiteToPostgres.counts(in: target)
            print("copied \(path) into PostgreSQL (rows: sqlite / postgres):")
            for table in SQLiteToPostgres.tables {
                let mark = before[table] == after[table] && copied[table] == before[table] ? "" : "   DIFFERS"
                let name = table.padding(toLength: 22, withPad: " ", startingAt: 0)
                print("  \(name) \(before[table] ?? 0) / \(after[table] ?? 0)\(mark)")
            }
            let sourceFindings = try await LedgerRepository(source).audit()
            let targetFindings = try await LedgerRepository(target).audit()
            print("audit: sqlite \(sourceFindings.count) finding(s), postgres \(targetFindings.count) finding(s)")
            for finding in targetFindings { print("  postgres: \(finding.detail)") }
            guard before == after, targetFindings.isEmpty, sourceFindings.isEmpty else { throw ExitCode(1) }
        }
    }
}
