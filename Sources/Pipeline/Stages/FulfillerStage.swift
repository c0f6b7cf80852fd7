import AppStore
import Broker
import Database
import Fulfiller
import GooglePlay
import HTTPClient
import Logging
import PipelineCore
import Reconciliation
import Repositories
import Scheduler
import ServiceLifecycle
import SettlementWriter
import StorePlugins

/// The fulfiller's composition root: verdicts applied to accounts, the subscription
/// scheduler, and what the stores are owed after the fact (Apple's jobs, the stores'
/// confirmations and services), over one HTTP client made only when one of them calls a
/// store.
public enum FulfillerStage {
    public struct Configuration: Sendable {
        public var fulfiller = Fulfiller.Configuration()
        public var scheduler = SubscriptionScheduler.Configuration()
        public var apple = AppleJobs()
        /// How the confirmations the stores' credits owe are paid (Google Play's acknowledgements among them).
        public var storeConfirmer = StoreConfirmer.Configuration()
        /// Whether the jobs that run in one process at a time (the scheduler, reconciliation,
        /// the answers to the stores' reviews, the voided poll) are elected through the
        /// database; false where one process runs every stage (`iap up`).
        public var elected = true

        public init(elected: Bool = true) {
            self.elected = elected
        }
    }

    public static func services(
        _ parts: StageParts, configuration: Configuration, database: any SQLDatabase, connection: AMQPConnection
    ) throws -> [any Service] {
        let elected = configuration.elected
        let leadership: @Sendable (String) -> any Leadership = { name in
            elected ? database.leadership(of: name) : AlwaysLeader()
        }
        var services: [any Service] = [
            Fulfiller(
                connection: connection, topology: parts.topology, settlement: SettlementRepository(database),
                deadLetters: DeadLetterRepository(database), catalog: parts.catalog,
                otherApps: parts.apps?.others.mapValues(\.catalog) ?? [:],
                configuration: configuration.fulfiller, logger: parts.logger("fulfiller")),
            SubscriptionScheduler(
                connection: connection, topology: parts.topology, checks: SubscriptionRepository(database),
                catalogs: AppCatalogs(parts.catalog, others: parts.apps?.others.mapValues(\.catalog) ?? [:]),
                configuration: configuration.scheduler,
                leadership: leadership("subscription-scheduler"), logger: parts.logger("scheduler")),
        ]
        let everyAppsStores = [parts.stores] + (parts.apps?.others.values.map(\.stores) ?? [])
        guard everyAppsStores.contains(where: { $0.apple?.serverAPIKey != nil || $0.runsInFulfiller }) else {
            return services
        }
        let client = try parts.httpClient(logger: parts.logger("stores"))
        // First, so that it closes after every job using it.
        services.insert(HTTPClientService(client: client), at: 0)
        services += try appleServices(
            AppleJobsApp(stores: parts.stores, scope: parts.apps.map { AppScope(app: $0.defaultApp, isDefault: true) }),
            parts, jobs: configuration.apple, database: database, client: client, leadership: leadership)
        // Each other app's with its own App Store key, elected under its own names.
        for (id, app) in (parts.apps?.others ?? [:]).sorted(by: { $0.key < $1.key }) {
            services += try appleServices(
                AppleJobsApp(stores: app.stores, scope: AppScope(app: id, isDefault: false)), parts,
                jobs: configuration.apple, database: database, client: client,
                leadership: { leadership("\($0)/\(id)") })
        }
        services += PluginStores.fulfillerServices(
            parts.stores, database: database, httpClient: client, catalog: parts.catalog,
            logger: parts.logger("stores"), confirmer: configuration.storeConfirmer, apps: parts.apps,
            leadership: leadership)
        return services
    }

    /// The app Apple's jobs are run for: its stores, and its scope (nil: the single-app settings).
    struct AppleJobsApp {
        var stores: StoreRegistry
        var scope: AppScope?
    }

    /// Apple's jobs (``AppleJobs``) for `app`, when its App Store Server API is configured.
    static func appleServices(
        _ app: AppleJobsApp, _ parts: StageParts, jobs: AppleJobs, database: any SQLDatabase,
        client: CurlHTTPClient, leadership: (String) -> any Leadership
    ) throws -> [any Service] {
        let logger = parts.logger("apple-jobs").with(app: app.scope)
        let budgets = AppCallBudgets.of(app.scope, in: MeteredCallBudgets.shared(database))
        guard let api = try app.stores.apple?.serverAPIClient(client: client, budgets: budgets, logger: logger)
        else {
            if jobs.reconcileInterval != nil || jobs.answersConsumption {
                logger.notice(
                    "IAP_APPSTORE_PRIVATE_KEY is not set: no reconciliation with Apple's Notification History, no answers to its consumption requests"
                )
            }
            return []
        }
        var services: [any Service] = []
        if let interval = jobs.reconcileInterval {
            let reconciler = Reconciler(
                api: api, environments: jobs.reconcileEnvironments, database: database,
                app: app.scope.flatMap { $0.isDefault ? nil : $0.id },
                logger: parts.logger("reconcile").with(app: app.scope))
            services.append(
                AppleJobService(
                    name: "reconciliation", interval: interval, leadership: leadership("reconciliation"),
                    logger: logger, job: reconciler.runScheduled))
        }
        if jobs.answersConsumption {
            let responder = ConsumptionResponder(
                api: api, database: database, prefers: jobs.prefersRefunds, app: app.scope ?? .single,
                logger: parts.logger("consumption").with(app: app.scope))
            services.append(
                AppleJobService(
                    name: "consumption answers", interval: .seconds(60),
                    leadership: leadership("consumption-answers"), logger: logger,
                    job: { _ = try await responder.answerPending() }))
        }
        return services
    }
}

extension Logger {
    /// This logger, its lines labelled with `app` (as it is, with the single-app settings).
    func with(app: AppScope?) -> Logger {
        var logger = self
        if let id = app?.id { logger[metadataKey: "app"] = "\(id)" }
        return logger
    }
}
