import ArgumentParser
import Notifier
import Observability
import Pipeline

extension IAP {
    /// Delivers the outbox as signed webhooks: one per SQLite file, any number on PostgreSQL.
    struct NotifierCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notifier",
            abstract:
                "Deliver notification rows to IAP_WEBHOOK_URL as Standard Webhooks signed with IAP_WEBHOOK_SECRET.")

        @Option(help: "Port of the admin server (/healthz, /readyz, /metrics); default IAP_ADMIN_PORT, else none.")
        var adminPort: Int?

        func validate() throws {
            if let adminPort, !(1...65_535).contains(adminPort) {
                throw ValidationError("--admin-port must be 1...65535")
            }
        }

        func run() async throws {
            let settings = try PipelineSettings()
            LogSetup.bootstrap(level: settings.logLevel)
            let notifierSettings = try NotifierSettings(environment: settings.environment, apps: settings.apps)
            let database = try await settings.openDatabase()
            let notifier = try NotifierStage.services(
                configuration: notifierSettings.configuration(), database: database,
                logger: settings.logger("notifier"))
            let operations = settings.operationsServices(
                role: .notifier, adminPort: adminPort, connection: nil, database: database)
            try await runServices(operations + notifier, settings: settings, label: "notifier")
        }
    }
}
