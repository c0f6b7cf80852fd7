import Broker
import Console
import Database
import Fulfiller
import Intake
import Logging
import Notifier
import Observability
import PipelineCore
import Repositories
import Scheduler
import ServiceLifecycle
import SettlementWriter
import StorePlugins
import Validator

/// Every stage in one process: what `iap up` runs, and what end-to-end tests run.
///
/// The services are listed in dependency order, so that a `ServiceGroup` shuts them down
/// in reverse: the HTTP API stops taking receipts first, the relay publishes what it
/// holds, workers finish their messages, and the broker connections close last.
///
/// ```swift
/// let pipeline = try LocalPipeline(configuration: config, database: database, logger: logger)
/// try await ServiceGroup(services: pipeline.services, gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// ```
public struct LocalPipeline: Sendable {
    public struct Configuration: Sendable {
        public var amqp: AMQPConfiguration
        public var topology: PipelineTopology
        public var catalog: Catalog
        public var intake: IntakeConfiguration
        public var relay: Relay.Configuration
        /// CA certificates (PEM) trusted for the stores' endpoints (`IAP_VERIFY_CA_FILE`); nil: the system's.
        public var caFile: String?
        /// The fulfiller's stage: the verdicts, the scheduler, the stores' confirmations and jobs.
        /// One process runs every stage, so nothing in it is elected.
        public var fulfillment = FulfillerStage.Configuration(elected: false)
        /// The stores configured (``PluginStores/configured(_:)``), Apple among them: each
        /// verifies, confirms and runs its jobs as its own settings say.
        public var stores: StoreRegistry
        /// The apps of `IAP_APPS` other than the default app, each with its stores and catalog
        /// (``AppsParts``); nil with the single-app settings.
        public var apps: AppsParts?

        public var validator: Validator.Configuration
        public var fulfiller: Fulfiller.Configuration {
            get { fulfillment.fulfiller }
            set { fulfillment.fulfiller = newValue }
        }
        public var scheduler: SubscriptionScheduler.Configuration {
            get { fulfillment.scheduler }
            set { fulfillment.scheduler = newValue }
        }
        public var notifier: Notifier.Configuration
        /// False to run the validators as processes of their own.
        public var runsValidator = true
        /// The operators' console under `/console`; nil, or no operators, disables it.
        public var console: ConsoleConfiguration?
        /// Set (by `iap up`), the intake serves `/metrics` from it and `/readyz`, and the
        /// queue depths are polled into it.
        public var metrics: MetricsRegistry?
        /// When set, `/metrics` asks for it as a bearer token (`IAP_METRICS_TOKEN`).
        public var metricsToken: String?

        public init(
            amqp: AMQPConfiguration, topology: PipelineTopology, catalog: Catalog, intake: IntakeConfiguration,
            relay: Relay.Configuration = .init(), stores: StoreRegistry, validator: Validator.Configuration = .init(),
            fulfiller: Fulfiller.Configuration = .init(),
            notifier: Notifier.Configuration
        ) {
            self.amqp = amqp
            self.topology = topology
            self.catalog = catalog
            self.intake = intake
            self.relay = relay
            self.stores = stores
            self.validator = validator
            self.fulfillment.fulfiller = fulfiller
            self.notifier = notifier
        }
    }

    public let services: [any Service]

    /// - Parameters:
    ///   - onIntakeRunning: called with the intake's bound port once it listens.
    public init(
        configuration: Configuration, database: any SQLDatabase, logger: Logger,
        onIntakeRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        func connection(_ label: String) -> AMQPConnection {
            var connectionLogger = logger
            connectionLogger[metadataKey: "amqp"] = "\(label)"
            return AMQPConnection(
                configuration: configuration.amqp, topology: configuration.topology.topology, logger: connectionLogger)
        }
        var parts = StageParts(
            topology: configuration.topology, catalog: configuration.catalog,
            stores: configuration.stores,
            caFile: configuration.caFile, logger: { _ in logger })
        parts.apps = configuration.apps
        let intakeConnection = connection("intake")
        let validatorConnection = connection("validator")
        let fulfillerConnection = connection("fulfiller")
        let health = configuration.metrics.map { registry in
            HealthEndpoints(
                registry: registry,
                checks: [
                    .broker(intakeConnection, name: "broker (intake)"),
                    .broker(validatorConnection, name: "broker (validator)"),
                    .broker(fulfillerConnection, name: "broker (fulfiller)"),
                    ReadinessCheck(name: "database") { try await database.ping() },
                ], metricsToken: configuration.metricsToken)
        }
        var services: [any Service] = [intakeConnection, validatorConnection, fulfillerConnection]
        // One process: the fulfiller tells the notifier of each commit rather than its polling.
        let outbox = Doorbell()
        var fulfillment = configuration.fulfillment
        fulfillment.fulfiller.outboxDoorbell = outbox
        var notifier = configuration.notifier
        notifier.doorbell = outbox
        services += try FulfillerStage.services(
            parts, configuration: fulfillment, database: database, connection: fulfillerConnection)
        services += try NotifierStage.services(configuration: notifier, database: database, logger: logger)
        if configuration.metrics != nil {
            services.append(
                QueueDepthPoller(connection: intakeConnection, topology: configuration.topology, logger: logger))
        }
        if configuration.runsValidator {
            services += try ValidatorStage.services(
                parts, configuration: configuration.validator,
                connection: validatorConnection, budgets: MeteredCallBudgets.shared(database))
        }
        // Last, so that it stops taking receipts first.
        services += IntakeStage.services(
            parts, configuration: configuration.intake,
            relay: configuration.relay, database: database, connection: intakeConnection, health: health,
            console: configuration.console, onServerRunning: onIntakeRunning)
        self.services = services
    }
}
