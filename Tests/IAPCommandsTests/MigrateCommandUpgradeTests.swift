import Foundation
import PipelineTesting
import Testing

@testable import EndToEndSupport

/// `iap migrate`, as an operator runs it on what the release before one schema history left
/// behind (`Tests/DatabaseTests/SchemaFixtures`): a SQLite file at v9 and a PostgreSQL database
/// at its schema 6, each with books in it. The command upgrades both in place and says so;
/// `iap audit` then finds the books balanced and `iap account show` the same balances.
@Suite struct MigrateCommandUpgradeTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("DatabaseTests/SchemaFixtures")

    @Test func aV9FileIsUpgradedByTheCommandWithItsBooksIntact() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("pipeline.sqlite")
        try FileManager.default.copyItem(
            atPath: Self.fixtures.appendingPathComponent("pipeline-v9.sqlite").path, toPath: path)
        try await Self.expectUpgraded(environment: ["IAP_DB_PATH": path], named: path)
    }

    @Test func aSchema6PostgreSQLDatabaseIsUpgradedByTheCommandWithItsBooksIntact() async throws {
        try await PostgresFixture.withDatabase { database in
            try await PostgresFixture.restore(
                Self.fixtures.appendingPathComponent("postgres-schema6.sql"), into: database)
            try await Self.expectUpgraded(
                environment: ["IAP_DATABASE_URL": PostgresFixture.url(of: database.location.database)],
                named: database.location.database)
        }
    }

    /// Runs `iap migrate` twice (the second finds nothing to do), then audits and reads an
    /// account the fixtures credited: 150 coins and a lifetime entitlement.
    static func expectUpgraded(environment: [String: String], named name: String) async throws {
        for _ in 1...2 {
            let migrated = try await IAPProcess.run(["migrate"], environment: environment)
            #expect(migrated.status == 0, "\(migrated.output)")
            #expect(migrated.output.contains("database ready"), "\(migrated.output)")
            #expect(migrated.output.contains(name), "\(migrated.output)")
        }
        let audit = try await IAPProcess.run(["audit"], environment: environment)
        #expect(audit.status == 0, "\(audit.output)")
        #expect(audit.output.contains("the books balance"), "\(audit.output)")
        let account = try await IAPProcess.run(["account", "show", "player-2"], environment: environment)
        #expect(account.status == 0, "\(account.output)")
        #expect(account.output.contains("balances: coins 150"), "\(account.output)")
        #expect(account.output.contains("entitlements: vip for good"), "\(account.output)")
    }
}
