import Database
import DatabasePostgres
import DatabaseSQLite
import DatabaseSchema
import Repositories
import SettlementWriter

/// Runs `body` against a database of `backend` that a release which stopped at schema
/// `version` wrote: `write` fills it in that schema (the migrations up to `version`, and no
/// further), then this program opens it, migrating it to the latest, as an upgrade does.
/// `body` also gets how a process beside the test finds it (`IAP_DB_PATH` or `IAP_DATABASE_URL`).
public func withTestDatabase<T>(
    _ backend: TestBackend, writtenAt version: Int, by write: (any SQLDatabase) async throws -> Void,
    _ body: (any SQLDatabase, [String: String]) async throws -> T
) async throws -> T {
    switch backend {
    case .sqlite:
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("pipeline.sqlite")
        do {
            let file = try SQLiteFile(path: path)
            try file.migrate(upTo: version)
            try await write(file)
        }
        return try await body(try SQLiteDatabase(path: path), ["IAP_DB_PATH": path])
    case .postgres:
        return try await PostgresFixture.withDatabase(connections: 4) { database in
            // The statements of the versions up to `version`, each recorded as the migrator records it.
            try await database.transaction { db in
                for migration in Schema.migrations where migration.version <= version {
                    for statement in migration.postgres { try await db.execute(statement) }
                }
                try await db.execute(
                    """
                    CREATE TABLE schema_migrations (
                      version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                    """)
                for migration in Schema.migrations where migration.version <= version {
                    try await db.execute("INSERT INTO schema_migrations (version) VALUES (?)", [migration.version])
                }
            }
            try await write(database)
            try await database.migrate()
            return try await body(database, ["IAP_DATABASE_URL": PostgresFixture.url(of: database.location.database)])
        }
    }
}
