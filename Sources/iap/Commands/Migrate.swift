import ArgumentParser
import Store

extension IAP {
    /// Creates or upgrades the database; every stage also does this at start on SQLite.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or upgrade the database: SQLite at IAP_DB_PATH, or PostgreSQL at IAP_DATABASE_URL.",
            discussion: """
                With IAP_DATABASE_URL (postgres://user:password@host:5432/database?sslmode=disable|prefer|require)
                the PostgreSQL schema is brought up to date, one migrator at a time across processes; a
                database migrated by a newer version of iap is refused and left as it is.
                """)

        func run() async throws {
            let settings = try PipelineSettings()
            if let url = settings.environment.optional("IAP_DATABASE_URL") {
                let location = try PostgresLocation(url: url)
                let database = PostgresPipelineDatabase(location: location, logger: settings.logger("migrate"))
                do {
                    try await database.migrate()
                    let version = try await database.schemaVersion()
                    await database.close()
                    print("database ready: \(location) (schema \(version))")
                } catch {
                    await database.close()
                    throw error
                }
                return
            }
            _ = try await settings.openDatabase()
            print("database ready: \(settings.databasePath)")
        }
    }
}
