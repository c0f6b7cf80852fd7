import ArgumentParser
import Fulfiller
import GooglePlay
import HTTPClient
import Observability
import Pipeline
import PipelineCore
import Reconciliation
import Scheduler
import ServiceLifecycle
import Store
import StorePlugins

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
                leadership: database.leadership(of: "subscription-scheduler"),
                logger: settings.logger("scheduler"))
            let operations = settings.operationsServices(
                role: .fulfiller, adminPort: adminPort, connection: connection, database: database)
            let appleJobs = try Self.appleJobs(settings: settings, database: database)
            let stores = try PluginStores.configured(settings.environment)
            let googleJobs = try Self.googleJobs(
                settings: settings, stores: stores, database: database, catalog: catalog)
            let storeJobs = try PluginStores.fulfillerServices(
                stores, database: database, catalog: catalog, logger: settings.logger("stores"))
            try await runServices(
                [connection] + operations + [fulfiller, scheduler] + appleJobs + googleJobs + storeJobs,
                settings: settings,
                label: "fulfiller")
        }

        /// With a Google service account: the voided purchases' poll, and the answers to
        /// Google's chargeback reviews (one process at a time; the preference as Apple's,
        /// IAP_CONSUMPTION_REFUND_PREFERENCE).
        static func googleJobs(
            settings: PipelineSettings, stores: StoreRegistry, database: any SQLDatabase, catalog: Catalog
        ) throws -> [any Service] {
            guard (stores.configured[GooglePlayStore.id] as? GooglePlayStore)?.setup != nil else { return [] }
            var jobs = PluginStores.GooglePlayJobs()
            jobs.voidedInterval = .seconds(
                try settings.environment.int("IAP_GOOGLE_VOIDED_INTERVAL_SECONDS", default: 900, range: 60...86_400))
            jobs.refundReviews = .init(prefers: try Self.prefersRefunds(settings))
            let client = try CurlHTTPClient(logger: settings.logger("google-play"))
            return [HTTPClientService(client: client)]
                + PluginStores.googlePlayServices(
                    stores, jobs: jobs, database: database, httpClient: client, catalog: catalog,
                    logger: settings.logger("google-play"))
        }

        /// IAP_CONSUMPTION_REFUND_PREFERENCE: `auto` (the default) or `none`.
        static func prefersRefunds(_ settings: PipelineSettings) throws -> Bool {
            let raw = settings.environment.optional("IAP_CONSUMPTION_REFUND_PREFERENCE") ?? "auto"
            guard raw == "auto" || raw == "none" else {
                throw SettingError(
                    variable: "IAP_CONSUMPTION_REFUND_PREFERENCE",
                    problem: "must be auto or none, got '\(raw.prefix(64))'")
            }
            return raw == "auto"
        }

        /// The jobs that talk to Apple after the fact, each in the one process holding its
        /// lead, when the App Store Server API is configured: reconciliation with its
        /// Notification History (unless IAP_RECONCILE_INTERVAL_SECONDS is 0), and answers to
        /// its consumption requests (IAP_CONSUMPTION_ANSWERS=on), and the app account tokens
        /// owed for purchases the validator confirmed without one (Set App Account Token).
        static func appleJobs(settings: PipelineSettings, database: any SQLDatabase) throws -> [any Service] {
            let logger = settings.logger("apple-jobs")
            let jobs = try ReconcileSettings(
                environment: settings.environment, verifier: VerifierSettings(environment: settings.environment))
            guard let (api, client) = try jobs.makeAPI(budgets: MeteredCallBudgets.shared(database), logger: logger)
            else {
                if jobs.interval > 0 || jobs.answersConsumption {
                    logger.notice(
                        "IAP_APPSTORE_PRIVATE_KEY is not set: no reconciliation with Apple's Notification History, no answers to its consumption requests"
                    )
                }
                return []
            }
            var services: [any Service] = [
                HTTPClientService(client: client),
                AppAccountTokenSetter(api: api, database: database, logger: settings.logger("app-account-tokens")),
            ]
            if jobs.interval > 0 {
                let reconciler = Reconciler(
                    api: api, environments: jobs.environments, database: database, logger: settings.logger("reconcile"))
                services.append(
                    AppleJobService(
                        name: "reconciliation", interval: .seconds(jobs.interval),
                        leadership: database.leadership(of: "reconciliation"), logger: logger,
                        job: reconciler.runScheduled))
            }
            if jobs.answersConsumption {
                let responder = ConsumptionResponder(
                    api: api, database: database, prefers: jobs.prefersRefunds,
                    logger: settings.logger("consumption"))
                services.append(
                    AppleJobService(
                        name: "consumption answers", interval: .seconds(60),
                        leadership: database.leadership(of: "consumption-answers"), logger: logger,
                        job: { _ = try await responder.answerPending() }))
            }
            return services
        }
    }
}
