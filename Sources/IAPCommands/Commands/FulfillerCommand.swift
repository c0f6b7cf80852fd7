import ArgumentParser
import Observability
import Pipeline

extension IAP {
    /// Credits accounts from verdicts: one per SQLite file, any number on PostgreSQL.
    struct FulfillerCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fulfiller",
            abstract: "Apply verdicts to accounts in the pipeline's database, exactly once, with IAP_CATALOG.",
            discussion: """
                Also runs the subscription scheduler (in one fulfiller at a time): it asks Apple about every \
                auto-renewable subscription an hour before its expiry and an hour after \
                (IAP_SUBSCRIPTION_CHECK_LEAD_SECONDS, IAP_SUBSCRIPTION_CHECK_LAG_SECONDS, IAP_SCHEDULER_INTERVAL_SECONDS).
                """)

        @Option(help: "Verdicts per transaction.") var batchSize = 256
        @Option(help: "Unacknowledged verdicts the broker may send ahead.") var prefetch = 1024
        @Option(help: "Port of the admin server (/healthz, /readyz, /metrics); default IAP_ADMIN_PORT, else none.")
        var adminPort: Int?

        func validate() throws {
            guard (1...10_000).contains(batchSize) else { throw ValidationError("--batch-size must be 1...10000") }
            guard (1...65_535).contains(prefetch) else { throw ValidationError("--prefetch must be 1...65535") }
            if let adminPort, !(1...65_535).contains(adminPort) {
                throw ValidationError("--admin-port must be 1...65535")
            }
        }

        func run() async throws {
            let settings = try PipelineSettings()
            LogSetup.bootstrap(level: settings.logLevel)
            let logger = settings.logger("fulfiller")
            let served = try settings.servedApps(logger: logger)
            var parts = settings.stageParts(
                catalog: served.catalog, stores: served.verifier.stores, caFile: served.verifier.caFile)
            parts.apps = served.apps
            var configuration = try Self.stage(settings)
            configuration.fulfiller = .init(
                batchSize: batchSize, prefetch: prefetch, linger: configuration.fulfiller.linger)
            let database = try await settings.openDatabase()
            let connection = settings.connection("fulfiller")
            let operations = settings.operationsServices(
                role: .fulfiller, adminPort: adminPort, connection: connection, database: database)
            let fulfiller = try FulfillerStage.services(
                parts, configuration: configuration,
                database: database, connection: connection)
            try await runServices([connection] + operations + fulfiller, settings: settings, label: "fulfiller")
        }

        /// The fulfiller stage as the environment configures it, for `iap fulfiller` and `iap up`.
        static func stage(_ settings: PipelineSettings) throws
            -> FulfillerStage.Configuration
        {
            var configuration = FulfillerStage.Configuration()
            let wait = Int(configuration.fulfiller.linger.milliseconds)
            configuration.fulfiller = .init(
                linger: .milliseconds(
                    try settings.environment.int("IAP_FULFILLER_COMMIT_WAIT_MS", default: wait, range: 0...1000)))
            configuration.scheduler = try .init(environment: settings.environment)
            return configuration
        }
    }
}
