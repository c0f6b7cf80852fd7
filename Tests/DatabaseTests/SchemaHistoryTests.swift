import Database
import DatabaseSchema
import Foundation
import PipelineCore
import PipelineTesting
import SettlementWriter
import Testing

@testable import DatabaseSQLite
@testable import Repositories

/// The migrations' SQLite text makes what GRDB's table DSL made before it: SQLite keeps
/// each object's CREATE text in `sqlite_master`, and it is the same to the byte, after every
/// version (`SchemaFixtures/README.md` says how the fixtures were made).
@Suite struct SchemaHistoryTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("SchemaFixtures")

    /// One row of `sqlite_master`, as `sqlite3 -json` writes it.
    struct MasterRow: Codable, Equatable, CustomStringConvertible {
        var type: String
        var name: String
        var tableName: String
        var sql: String?

        enum CodingKeys: String, CodingKey {
            case type, name, sql
            case tableName = "tbl_name"
        }

        var description: String { "\(type)|\(name)|\(tableName)|\(sql ?? "NULL")" }
    }

    /// `sqlite_master` of the file at `path`, in rowid order (the order things were made).
    static func master(_ path: String) async throws -> [MasterRow] {
        try await SQLiteFile(path: path).snapshot { db in
            try await db.records(MasterRow.self, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
        }
    }

    @Test func aFileAtV9HoldsWhatThePreviousReleaseMadeToTheByte() async throws {
        // Given what the release before one schema history wrote in a fresh file (at v9)
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("sqlite-master-v9.json"))
        let expected = try JSONDecoder().decode([MasterRow].self, from: data)

        // When this program makes a file and takes it to v9
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"
        try SQLiteFile(path: path).migrate(upTo: 9)

        // Then its sqlite_master is the same, row by row and byte by byte
        let found = try await Self.master(path)
        for (old, new) in zip(expected, found) where old != new {
            Issue.record("\(old.name): was\n\(old)\nnow\n\(new)")
        }
        #expect(found.count == expected.count)
        #expect(found.map(\.name) == expected.map(\.name))
    }

    @Test func everyVersionLeavesWhatTheTableDSLLeft() async throws {
        // Given the hash of sqlite_master after each version, as the DSL migrations left it
        let lines = try String(
            contentsOf: Self.fixtures.appendingPathComponent("sqlite-master-sha256.txt"), encoding: .utf8
        ).split(separator: "\n")
        let expected = Dictionary(
            uniqueKeysWithValues: lines.map { line in
                let parts = line.split(separator: " ")
                return (String(parts[0]), String(parts[1]))
            })
        // The table DSL wrote versions 1-9; later ones were static text from the start.
        #expect(expected.count == 9)

        // When one file is migrated a version at a time
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"
        let file = try SQLiteFile(path: path)
        for migration in Schema.migrations where migration.version <= expected.count {
            let identifier = "v\(migration.version)"
            try file.migrate(upTo: migration.version)

            // Then after each, sqlite_master is what the DSL left: a file the old code took
            // to any version ends where a fresh one does
            let text = try await Self.master(path).map(\.description).joined(separator: "\n")
            #expect(PayloadHash.sha256Hex(text) == expected[identifier], "\(identifier)")
        }
    }

    @Test func theHistoryIsOneNumberingWithTextForBothDatabases() {
        #expect(Schema.migrations.map(\.version) == Array(1...22))
        #expect(Schema.latestVersion == 22)
        for migration in Schema.migrations {
            #expect(!migration.sqlite.isEmpty, "v\(migration.version)")
            // PostgreSQL's schema begins at v4 (Schema.version1 says why).
            #expect(migration.postgres.isEmpty == (migration.version < 4), "v\(migration.version)")
        }
    }
}
