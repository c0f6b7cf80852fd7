import Broker
import Hummingbird
import Logging
import Observability
import PipelineCore
import ServiceLifecycle
import Store

/// The intake stage: the backend's HTTP API plus the relay that publishes what it stored.
///
/// ```swift
/// let intake = Intake(configuration: config, database: db, connection: amqp, topology: topology, logger: logger)
/// let group = ServiceGroup(services: [amqp, intake.relay, intake.application()], ...)
/// ```
public struct Intake: Sendable {
    public let configuration: IntakeConfiguration
    public let relay: Relay
    let routes: IntakeRoutes
    let notifications: NotificationRoutes
    let orders: OrderRoutes
    let health: HealthEndpoints?
    let logger: Logger
    /// Routes mounted beside the API, such as the operators' console under `/console`.
    public var additionalRoutes: @Sendable (Router<BasicRequestContext>) -> Void = { _ in }

    public init(
        configuration: IntakeConfiguration, database: any SQLDatabase, catalog: Catalog, connection: AMQPConnection,
        topology: PipelineTopology, relayConfiguration: Relay.Configuration = .init(),
        health: HealthEndpoints? = nil, logger: Logger
    ) {
        let thread = SerialThread(name: "intake-db")
        let relay = Relay(
            connection: connection, database: database, thread: thread, topology: topology,
            configuration: relayConfiguration, logger: logger)
        self.configuration = configuration
        self.relay = relay
        self.routes = IntakeRoutes(
            accounts: LedgerStore(database), receipts: ReceiptStore(database),
            committer: GroupCommitter(database: database, thread: thread) { relay.enqueue($0) },
            maxBodySize: configuration.maxBodySize)
        self.orders = OrderRoutes(
            orders: OrderStore(database), catalog: catalog, orderLifetime: configuration.orderLifetime,
            maxBodySize: configuration.maxBodySize)
        self.notifications = NotificationRoutes(
            notifications: AppleNotificationStore(database), relay: relay, maxBodySize: configuration.maxBodySize)
        self.health = health
        self.logger = logger
    }

    /// The routes, for tests that drive them without a socket.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("healthz") { _, _ in "ok" }
        // `/metrics` and `/readyz` when the process exports metrics (the `iap` commands).
        health?.register(on: router, healthz: false)
        let v1 = router.group("v1").add(middleware: BearerAuth(tokens: configuration.apiTokens))
        routes.register(on: v1)
        orders.register(on: v1)
        notifications.register(on: router)
        additionalRoutes(router)
        return router
    }

    /// The HTTP server, a `Service`. `onServerRunning` learns the bound port (for port 0).
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        Application(
            router: router(),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "iap-intake"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}
