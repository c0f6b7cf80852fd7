import ArgumentParser
import Fulfiller
import Observability
import Pipeline
import Reconciliation
import Scheduler
import ServiceLifecycle
import Store

extension IAP {
    /// Credits accounts from verdicts; one per database.
    struct FulfillerCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fulfiller",
            abstract: "Apply verdicts to accounts in SQLite (IAP_DB_PATH), exactly once, with IAP_CATALOG.",
            discussion: """
                Also runs the subscription scheduler (one per database): it asks Apple about every \
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
            let catalog = try settings.catalog(logger: logger)
            let schedule = try SubscriptionScheduler.Configuration(environment: settings.environment)
            let database = try await settings.openDatabase()
            let connection = settings.connection("fulfiller")
            let fulfiller = Fulfiller(
                connection: connection, topology: settings.topology, settlement: SettlementStore(database),
                deadLetters: DeadLetterStore(database), catalog: catalog,
                configuration: .init(batchSize: batchSize, prefetch: prefetch), logger: logger)
            let scheduler = SubscriptionScheduler(
                connection: connection, topology: settings.topology, checks: SubscriptionStore(database),
                catalog: catalog, configuration: schedule,
                leadership: (database as? PostgresPipelineDatabase)?.leadership(of: "subscription-scheduler")
                    ?? AlwaysLeader(),
                logger: settings.logger("scheduler"))
            let operations = settings.operationsServices(
                role: .fulfiller, adminPort: adminPort, connection: connection, database: database)
            let reconciliation = try Self.reconciliation(settings: settings, database: database)
            try await runServices(
                [connection] + operations + [fulfiller, scheduler] + reconciliation, settings: settings,
                label: "fulfiller")
        }

        /// The scheduled reconciliation with Apple's Notification History, when the App Store
        /// Server API is configured and IAP_RECONCILE_INTERVAL_SECONDS is not 0.
        static func reconciliation(settings: PipelineSettings, database: any SQLDatabase) throws -> [any Service] {
            let logger = settings.logger("reconcile")
            let reconcile = try ReconcileSettings(
                environment: settings.environment, verifier: VerifierSettings(environment: settings.environment))
            guard reconcile.interval > 0 else { return [] }
            guard let (reconciler, client) = try reconcile.makeReconciler(database: database, logger: logger) else {
                logger.notice(
                    "IAP_APPSTORE_PRIVATE_KEY is not set: no reconciliation with Apple's Notification History")
                return []
            }
            return [
                HTTPClientService(client: client),
                ReconciliationService(
                    reconciler: reconciler, interval: .seconds(reconcile.interval),
                    leadership: (database as? PostgresPipelineDatabase)?.leadership(of: "reconciliation")
                        ?? AlwaysLeader(),
                    logger: logger),
            ]
        }
    }
}
