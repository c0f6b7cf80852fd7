import ArgumentParser
import Console
import DeadLetters
import Intake
import Observability
import Pipeline
import Store

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
            var intakeConfiguration = try IntakeConfiguration(environment: settings.environment)
            intakeConfiguration.stores = try PluginStores.configured(settings.environment)
            let catalog = try settings.catalog(logger: settings.logger("intake"))
            let database = try await settings.openDatabase()
            let connection = settings.connection("intake")
            let health = HealthEndpoints(
                registry: MetricsBootstrap.prometheus(),
                checks: settings.readinessChecks(connection: connection, database: database),
                metricsToken: settings.operations.metricsToken)
            var intake = Intake(
                configuration: intakeConfiguration, database: database, catalog: catalog, connection: connection,
                topology: settings.topology, health: health, logger: settings.logger("intake"))
            let consoleConfiguration = try ConsoleConfiguration(environment: settings.environment)
            // Mounted even when no operator is configured: it then answers 503 and says why.
            let console = OperatorConsole(
                configuration: consoleConfiguration,
                review: DeadLetterReview(
                    store: DeadLetterStore(database), connection: connection, topology: settings.topology),
                database: database, catalog: catalog, logger: settings.logger("console"))
            intake.additionalRoutes = { console.register(on: $0) }
            // The intake serves its own /metrics: no admin server.
            let operations = settings.operationsServices(
                role: .intake, adminPort: nil, connection: connection, database: nil, servesAdmin: false)
            try await runServices(
                [connection] + operations + [intake.relay, intake.pruner, intake.application()], settings: settings,
                label: "intake")
        }
    }
}
