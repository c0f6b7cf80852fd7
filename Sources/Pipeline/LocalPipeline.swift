import AppStore
import Broker
import Console
import DeadLetters
import Fulfiller
import GooglePlay
import HTTPClient
import Hummingbird
import Intake
import Logging
import Notifier
import Observability
import PipelineCore
import Scheduler
import ServiceLifecycle
import Store
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
        public var verifier: VerifyReceiptVerifier.Configuration
        /// How legacy receipts are verified (`IAP_RECEIPT_VERIFICATION`); `apple` by default.
        public var receiptVerification = ReceiptVerificationMode.apple
        /// The local checks of `local` and `local-then-apple`; nil trusts Apple Inc. Root CA
        /// for ``verifier``'s bundle id.
        public var appReceipt: AppReceiptVerifier.Configuration?
        /// StoreKit 2 verification; nil rejects signed transactions and notifications. Set, the
        /// intake takes Apple's notifications signed under its roots (``IntakeConfiguration/appleSignatures``).
        public var signedData: SignedDataVerifier?
        /// App Store Server API credentials; set, signed transactions are confirmed with Apple.
        public var serverAPIKey: AppStoreServerAPIKey?
        public var serverAPI = AppStoreServerAPIClient.Configuration()
        /// How the confirmations plug-in stores are owed are paid (Google Play's acknowledgements among them).
        public var storeConfirmer = StoreConfirmer.Configuration()
        /// Answers to Google's chargeback reviews; nil: none.
        public var googleRefundReviews: GoogleRefundReviewAnswerer.Configuration? = .init()
        /// Whether Google Play's voided purchases are read every 15 minutes (tests read them themselves).
        public var pollsGoogleVoided = true
        /// The plug-in stores configured (``PluginStores/configured(_:)``); by default as an
        /// empty environment leaves them (Google on, rejecting its purchases; the others off).
        public var stores = PluginStores.unconfigured

        /// Google Play's service account and API, as its plug-in in ``stores`` has them; nil
        /// rejects Play purchases as not configured.
        public var googlePlay: GooglePlaySetup? { (stores.configured[GooglePlayStore.id] as? GooglePlayStore)?.setup }
        public var validator: Validator.Configuration
        public var fulfiller: Fulfiller.Configuration
        public var notifier: Notifier.Configuration
        public var scheduler = SubscriptionScheduler.Configuration()
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
            relay: Relay.Configuration = .init(), verifier: VerifyReceiptVerifier.Configuration,
            signedData: SignedDataVerifier? = nil, validator: Validator.Configuration = .init(),
            fulfiller: Fulfiller.Configuration = .init(),
            notifier: Notifier.Configuration
        ) {
            self.amqp = amqp
            self.topology = topology
            self.catalog = catalog
            self.intake = intake
            self.relay = relay
            self.verifier = verifier
            self.signedData = signedData
            self.validator = validator
            self.fulfiller = fulfiller
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
        // As many connections to the verify endpoint as verifications in flight (HTTP/1.1).
        let concurrency = configuration.validator.concurrency
        let client = try CurlHTTPClient(
            configuration: .init(
                maxConnections: max(256, concurrency + 64), maxConnectionsPerHost: max(64, concurrency)),
            logger: logger)
        let builtIn = Verifiers.make(
            legacy: try Verifiers.legacy(
                mode: configuration.receiptVerification,
                appReceipt: configuration.appReceipt ?? .init(bundleID: configuration.verifier.bundleID),
                apple: try VerifyReceiptVerifier(configuration: configuration.verifier, client: client, logger: logger),
                logger: logger),
            signedData: configuration.signedData,
            serverAPI: try configuration.serverAPIKey.map {
                try AppStoreServerAPIClient(
                    key: $0, configuration: configuration.serverAPI, httpClient: client,
                    budgets: MeteredCallBudgets.shared(database), logger: logger)
            })
        let verifier = try PluginStores.verifier(
            configuration.stores, builtIn: builtIn, httpClient: client, budgets: MeteredCallBudgets.shared(database),
            catalog: configuration.catalog, logger: logger)
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
        var intakeConfiguration = configuration.intake
        // The intake refuses notifications its validator would: they trust the same roots,
        // and share the cache of chains that validated.
        if let signedData = configuration.signedData { intakeConfiguration.appleSignatures = signedData.authenticator }
        intakeConfiguration.stores = configuration.stores
        var intake = Intake(
            configuration: intakeConfiguration, database: database, catalog: configuration.catalog,
            connection: intakeConnection, topology: configuration.topology, relayConfiguration: configuration.relay,
            health: health, logger: logger)
        if let consoleConfiguration = configuration.console {
            let console = OperatorConsole(
                configuration: consoleConfiguration,
                review: DeadLetterReview(
                    store: DeadLetterStore(database), connection: intakeConnection, topology: configuration.topology),
                database: database, catalog: configuration.catalog, logger: logger)
            intake.additionalRoutes = { console.register(on: $0) }
        }
        var services: [any Service] = [
            HTTPClientService(client: client),
            intakeConnection, validatorConnection, fulfillerConnection,
            Fulfiller(
                connection: fulfillerConnection, topology: configuration.topology,
                settlement: SettlementStore(database),
                deadLetters: DeadLetterStore(database),
                catalog: configuration.catalog, configuration: configuration.fulfiller, logger: logger),
            Notifier(configuration: configuration.notifier, database: database, client: client, logger: logger),
            SubscriptionScheduler(
                connection: fulfillerConnection, topology: configuration.topology, checks: SubscriptionStore(database),
                catalog: configuration.catalog, configuration: configuration.scheduler, logger: logger),
        ]
        services += try PluginStores.fulfillerServices(
            configuration.stores, database: database, catalog: configuration.catalog, logger: logger,
            confirmer: configuration.storeConfirmer)
        if configuration.metrics != nil {
            services.append(
                QueueDepthPoller(connection: intakeConnection, topology: configuration.topology, logger: logger))
        }
        if let key = configuration.serverAPIKey {
            // Purchases the Server API confirmed without an app account token: Apple is told the account's.
            services.append(
                AppAccountTokenSetter(
                    api: try AppStoreServerAPIClient(
                        key: key, configuration: configuration.serverAPI, httpClient: client,
                        budgets: MeteredCallBudgets.shared(database), logger: logger),
                    database: database, logger: logger))
        }
        var google = PluginStores.GooglePlayJobs()
        google.refundReviews = configuration.googleRefundReviews
        google.voidedInterval = configuration.pollsGoogleVoided ? google.voidedInterval : nil
        // One process runs every stage: no election.
        google.elected = false
        services += PluginStores.googlePlayServices(
            configuration.stores, jobs: google, database: database, httpClient: client,
            catalog: configuration.catalog, logger: logger)
        if configuration.runsValidator {
            services.append(
                Validator(
                    connection: validatorConnection, topology: configuration.topology, verifier: verifier,
                    configuration: configuration.validator, logger: logger))
        }
        services += [intake.relay, intake.pruner, intake.application(onServerRunning: onIntakeRunning)]
        self.services = services
    }
}

/// Keeps a shared HTTP client open until shutdown, then closes it after its users.
public struct HTTPClientService: Service {
    let client: CurlHTTPClient

    public init(client: CurlHTTPClient) {
        self.client = client
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await client.shutdown()
    }
}
