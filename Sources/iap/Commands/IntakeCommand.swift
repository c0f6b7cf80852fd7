import ArgumentParser
import Intake
import Observability

extension IAP {
    /// The backend's HTTP API and the relay that publishes committed receipts.
    struct IntakeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "intake",
            abstract: "Serve the receipt API (IAP_HTTP_PORT) and publish committed receipts to the broker.",
            discussion: "Also serves /healthz, /readyz (broker and database) and /metrics (Prometheus) on the same port.")

        func run() async throws {
            let settings = try PipelineSettings()
            LogSetup.bootstrap(level: settings.logLevel)
            let intakeConfiguration = try IntakeConfiguration(environment: settings.environment)
            let database = try settings.openDatabase()
            let connection = settings.connection("intake")
            let health = HealthEndpoints(
                registry: MetricsBootstrap.prometheus(),
                checks: settings.readinessChecks(connection: connection, database: database))
            let intake = Intake(
                configuration: intakeConfiguration, database: database, connection: connection,
                topology: settings.topology, health: health, logger: settings.logger("intake"))
            // The intake serves its own /metrics: no admin server.
            let operations = settings.operationsServices(
                role: .intake, adminPort: nil, connection: connection, database: nil, servesAdmin: false)
            try await runServices(
                [connection] + operations + [intake.relay, intake.application()], settings: settings, label: "intake")
        }
    }
}
