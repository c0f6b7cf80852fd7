import ArgumentParser
import Console
import Intake
import Observability
import Pipeline

extension IAP {
    /// The backend's HTTP API and the relay that publishes committed receipts.
    struct IntakeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "intake",
            abstract: "Serve the receipt API (IAP_HTTP_PORT) and publish committed receipts to the broker.",
            discussion:
                "Also serves /healthz, /readyz (broker and database) and /metrics (Prometheus) on the same port.")

        func run() async throws {
            let settings = try PipelineSettings()
            LogSetup.bootstrap(level: settings.logLevel)
            let intakeConfiguration = try IntakeConfiguration(environment: settings.environment, apps: settings.apps)
            // With IAP_APPS, the default app's stores and each other app's, as the validator has them.
            let served = try settings.servedApps(logger: settings.logger("intake"))
            var parts = settings.stageParts(catalog: served.catalog, stores: served.verifier.stores)
            parts.apps = served.apps
            // Mounted even when no operator is configured: it then answers 503 and says why.
            var console = try ConsoleConfiguration(environment: settings.environment)
            console.apps = settings.appDirectory
            console.catalogs = try settings.consoleCatalogs()
            let database = try await settings.openDatabase()
            let connection = settings.connection("intake")
            let health = HealthEndpoints(
                registry: MetricsBootstrap.prometheus(),
                checks: settings.readinessChecks(connection: connection, database: database),
                metricsToken: settings.operations.metricsToken)
            // The intake serves its own /metrics: no admin server.
            let operations = settings.operationsServices(
                role: .intake, adminPort: nil, connection: connection, database: nil, servesAdmin: false)
            let intake = IntakeStage.services(
                parts, configuration: intakeConfiguration, database: database, connection: connection, health: health,
                console: console)
            try await runServices([connection] + operations + intake, settings: settings, label: "intake")
        }
    }
}
