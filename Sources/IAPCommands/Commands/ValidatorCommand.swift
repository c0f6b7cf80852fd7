import ArgumentParser
import Observability
import Pipeline
import PipelineCore

extension IAP {
    /// Stateless verify workers; run as many as Apple's latency needs.
    struct ValidatorCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validator",
            abstract: "Verify receipts with IAP_VERIFY_URL, retrying transient failures, dead-lettering hopeless ones.")

        @Option(help: "Verify requests in flight at once.") var concurrency = 256
        @Option(help: "Unacknowledged messages the broker may send ahead (at least --concurrency).") var prefetch: Int?
        @Option(help: "Verify attempts before a message is dead-lettered.") var maxAttempts = 8
        @Option(help: "Port of the admin server (/healthz, /readyz, /metrics); default IAP_ADMIN_PORT, else none.")
        var adminPort: Int?

        func validate() throws {
            guard (1...10_000).contains(concurrency) else { throw ValidationError("--concurrency must be 1...10000") }
            if let prefetch, !(1...65_535).contains(prefetch) { throw ValidationError("--prefetch must be 1...65535") }
            guard (1...100).contains(maxAttempts) else { throw ValidationError("--max-attempts must be 1...100") }
            if let adminPort, !(1...65_535).contains(adminPort) {
                throw ValidationError("--admin-port must be 1...65535")
            }
        }

        func run() async throws {
            let settings = try PipelineSettings()
            LogSetup.bootstrap(level: settings.logLevel)
            let logger = settings.logger("validator")
            let served = try settings.servedApps(logger: logger)
            var parts = settings.stageParts(
                catalog: served.catalog, stores: served.verifier.stores, caFile: served.verifier.caFile)
            parts.apps = served.apps
            // The stores' rate limits (Apple's, Google's, Huawei's) bind every validator together: with
            // credentials, the call budgets live in the pipeline's database, the one place all
            // of them see.
            let database =
                ValidatorStage.spendsSharedBudgets(parts) ? try await settings.openDatabase() : nil
            let connection = settings.connection("validator")
            let operations = settings.operationsServices(
                role: .validator, adminPort: adminPort, connection: connection, database: nil)
            let validator = try ValidatorStage.services(
                parts,
                configuration: .init(
                    concurrency: concurrency, prefetch: prefetch, retryPolicy: RetryPolicy(maxAttempts: maxAttempts),
                    shutdownGrace: settings.operations.shutdownGrace),
                connection: connection, budgets: database.map { MeteredCallBudgets.shared($0) })
            try await runServices([connection] + operations + validator, settings: settings, label: "validator")
        }
    }
}
