import Database
import DatabasePostgres
import DatabaseSQLite
import Dispatch
import Drills
import Foundation
import Logging
import Repositories
import SettlementWriter

/// The database backends the store tests run against: the same tests, both backends.
public enum TestBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }
}

/// A fresh PostgreSQL database per test on the server `scripts/postgres.sh` starts
/// (`IAP_TEST_DATABASE_URL` names another), dropped afterwards.
public enum PostgresFixture {
    public static let serverURL =
        ProcessInfo.processInfo.environment["IAP_TEST_DATABASE_URL"]
        ?? "postgres://iap_test:iap-test-only@127.0.0.1:5432/postgres?sslmode=disable"

    public static let server = try! PostgresLocation(url: serverURL, variable: "IAP_TEST_DATABASE_URL")

    /// The URL of `database` on the test server, password included: for an `iap` process.
    public static func url(of database: String) -> String {
        var components = URLComponents(string: serverURL)!
        components.path = "/" + database
        return components.string!
    }

    /// Runs `body` against a new, empty database (not migrated).
    public static func withDatabase<T>(
        connections: Int = 2, _ body: (PostgresPipelineDatabase) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .error
        let name = "iap_test_" + UUID().uuidString.prefix(13).lowercased().replacingOccurrences(of: "-", with: "")
        let admin = PostgresPipelineDatabase(location: server, connections: 1, logger: logger)
        try await admin.administer("CREATE DATABASE \(name)")
        let database = PostgresPipelineDatabase(
            location: server.database(name), connections: connections, logger: logger)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(database))
        } catch {
            result = .failure(error)
        }
        await database.close()
        try? await admin.administer("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        await admin.close()
        return try result.get()
    }
}

extension PostgresFixture {
    /// Loads a `pg_dump` file into `database` with `psql`, as an operator restores one.
    public static func restore(_ dump: URL, into database: PostgresPipelineDatabase) async throws {
        let outcome = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/psql"),
            [
                "--quiet", "--no-psqlrc", "--set", "ON_ERROR_STOP=1", "--file", dump.path,
                "--dbname", url(of: database.location.database),
            ])
        guard outcome.status == 0 else { throw RestoreFailed(output: outcome.output) }
    }

    public struct RestoreFailed: Error, CustomStringConvertible {
        public var output: String
        public var description: String { "psql: \(output)" }
    }
}

/// Runs `body` against a fresh, migrated database of `backend`: a real SQLite file in a
/// temporary directory, or a new database on the PostgreSQL server.
public func withTestDatabase<T>(
    _ backend: TestBackend, _ body: (any SQLDatabase) async throws -> T
) async throws -> T {
    switch backend {
    case .sqlite:
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try await body(SQLiteDatabase(path: directory.file("pipeline.sqlite")))
    case .postgres:
        return try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            return try await body(database)
        }
    }
}
