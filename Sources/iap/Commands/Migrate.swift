import ArgumentParser

extension IAP {
    /// Creates or upgrades the SQLite database; every stage also does this at start.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or upgrade the SQLite database at IAP_DB_PATH.")

        func run() async throws {
            let settings = try PipelineSettings()
            _ = try settings.openDatabase()
            print("database ready: \(settings.databasePath)")
        }
    }
}
