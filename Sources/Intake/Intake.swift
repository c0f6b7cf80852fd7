import Broker
import Database
import Hummingbird
import Logging
import Observability
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter

/// The intake stage: the backend's HTTP API plus the relay that publishes what it stored.
///
/// ```swift
/// let intake = Intake(configuration: config, database: db, connection: amqp, topology: topology, logger: logger)
/// let group = ServiceGroup(services: [amqp, intake.relay, intake.pruner, intake.application()], ...)
/// ```
public struct Intake: Sendable {
    public let configuration: IntakeConfiguration
    public let relay: Relay
    /// Deletes rejected Apple notifications past their retention; run it beside the relay.
    public let pruner: NotificationPruner
    let routes: IntakeRoutes
    let notifications: NotificationRoutes
    let orders: OrderRoutes
    let exports: ExportRoutes
    let health: HealthEndpoints?
    let apiLimiter: RateLimiter<[UInt8]>?
    let logger: Logger
    /// Routes mounted beside the API, such as the operators' console under `/console`.
    public var additionalRoutes: @Sendable (Router<IntakeRequestContext>) -> Void = { _ in }

    public init(
        configuration: IntakeConfiguration, database: any SQLDatabase, catalog: Catalog, connection: AMQPConnection,
        topology: PipelineTopology, relayConfiguration: Relay.Configuration = .init(),
        health: HealthEndpoints? = nil, logger: Logger
    ) {
        // The wait for company is an operator's setting of the intake's (`IAP_RELAY_PACK_WAIT_MS`).
        var relayConfiguration = relayConfiguration
        relayConfiguration.packWait = configuration.packWait
        let relay = Relay(
            connection: connection, database: database, topology: topology,
            configuration: relayConfiguration, logger: logger)
        self.configuration = configuration
        self.relay = relay
        self.routes = IntakeRoutes(
            accounts: LedgerRepository(database), consents: ConsumptionRepository(database),
            receipts: ReceiptRepository(database),
            orders: OrderRepository(database),
            committer: GroupCommitter(database: database, maxWait: configuration.commitWait, relay: relay.id) {
                relay.enqueue($0)
            },
            maxBodySize: configuration.maxBodySize, stores: { configuration.stores(of: $0) },
            tracing: IntakeTracing(database: database))
        self.orders = OrderRoutes(
            orders: OrderRepository(database),
            catalogs: AppCatalogs(catalog, others: configuration.appCatalogs),
            orderLifetime: configuration.orderLifetime,
            maxBodySize: configuration.maxBodySize)
        self.exports = ExportRoutes(
            revenue: RevenueExport(RevenueRepository(database)), ledger: LedgerExport(database),
            subscriptions: SubscriptionExport(database))
        self.notifications = NotificationRoutes(
            notifications: NotificationRepository(database, relay: relay.id), relay: relay,
            limiter: configuration.notificationRateLimit.map { RateLimiter($0) },
            stores: [("", configuration.stores)]
                + configuration.appStores.keys.sorted().map { ($0, configuration.appStores[$0]!) })
        self.pruner = NotificationPruner(
            notifications: NotificationRepository(database), retention: configuration.rejectedNotificationRetention,
            logger: logger)
        self.apiLimiter = configuration.rateLimit.map { RateLimiter($0) }
        self.health = health
        self.logger = logger
    }

    /// The routes, for tests that drive them without a socket.
    public func router() -> Router<IntakeRequestContext> {
        let router = Router(context: IntakeRequestContext.self)
        let methods = RouteMethods()
        // First, so that every error below it, a 404 included, leaves as JSON.
        // Outermost, so that its server span sees the answer as sent (errors made JSON below).
        if routes.tracing.enabled { router.add(middleware: TracingMiddleware()) }
        router.add(middleware: JSONErrorMiddleware(logger: logger, routes: methods))
        router.get("healthz") { _, _ in "ok" }
        // `/metrics` and `/readyz` when the process exports metrics (the `iap` commands).
        health?.register(on: router, healthz: false)
        let v1 = router.group("v1").add(middleware: BearerAuth(tokens: configuration.tokens, limiter: apiLimiter))
        routes.register(on: v1)
        orders.register(on: v1)
        exports.register(on: v1)
        notifications.register(on: router)
        additionalRoutes(router)
        methods.set(AllowedMethods(router.routes))
        return router
    }

    /// The HTTP server, a `Service`. `onServerRunning` learns the bound port (for port 0).
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        Application(
            router: router(),
            server: .intake(connectionLimits()),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "iap-intake"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// The connection settings, the caps fitted under the process's file limit (with room
    /// for the database, the broker and the HTTP clients) and said when that lowers them.
    func connectionLimits(openFiles: Int = OpenFileLimit.current) -> IntakeHTTPChannel.Limits {
        let asked = ConnectionLimiter.Limits(
            total: configuration.maxConnections, perAddress: configuration.maxConnectionsPerAddress)
        let fitted = asked.fitted(underOpenFiles: openFiles)
        if fitted.total < asked.total {
            logger.warning(
                "the file limit lowers the connection cap: raise the hard limit (LimitNOFILE, ulimit -Hn) to serve more",
                metadata: ["open_files": "\(openFiles)", "max_connections": "\(fitted.total)"])
        }
        return .init(
            idleTimeout: configuration.idleTimeout, requestTimeout: configuration.requestTimeout,
            maxHeaderBytes: configuration.maxHeaderBytes, connections: fitted)
    }
}
