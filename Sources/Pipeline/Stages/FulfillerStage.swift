import Broker
import Database
import Fulfiller
import HTTPClient
import Logging
import PipelineCore
import Repositories
import Scheduler
import ServiceLifecycle
import SettlementWriter
import StorePlugins

/// The fulfiller's composition root: verdicts applied to accounts, the subscription
/// scheduler, and what the stores are owed after the fact (the stores' confirmations and
/// their own jobs: Apple's reconciliation, Google's voided poll), over one HTTP client made
/// only when one of them calls a store.
public enum FulfillerStage {
    public struct Configuration: Sendable {
        public var fulfiller = Fulfiller.Configuration()
        public var scheduler = SubscriptionScheduler.Configuration()
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
                connection: connection, topology: parts.topology,
                settlement: SettlementRepository(database, revenueCommitted: RevenueCounters.count),
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
        guard everyAppsStores.contains(where: \.runsInFulfiller) else { return services }
        let client = try parts.httpClient(logger: parts.logger("stores"))
        // First, so that it closes after every job using it.
        services.insert(HTTPClientService(client: client), at: 0)
        services += PluginStores.fulfillerServices(
            parts.stores, database: database, httpClient: client, catalog: parts.catalog,
            logger: parts.logger("stores"), confirmer: configuration.storeConfirmer, apps: parts.apps,
            leadership: leadership)
        return services
    }
}
