import Apps
import PipelineCore
import StorePlugins

/// The intake's settings: where it listens, whom it serves, and how much it takes.
public struct IntakeConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Bearer tokens of the default app's backends (`IAP_API_TOKENS`, and the first app's of
    /// `IAP_APPS`).
    public var apiTokens: [String]
    /// The tokens as the intake checks them, each with its app: digests of ``apiTokens``,
    /// of the lines of `IAP_API_TOKENS_FILE`, re-read when the file changes, and of the
    /// other apps' tokens in `IAP_APPS`.
    public var tokens: APITokens
    /// Larger bodies get 413; a real app receipt is a few KB.
    public var maxBodySize: Int
    /// How long an order stays open for its payment (a payment after that still credits).
    public var orderLifetime: Duration
    /// Requests per API token (`IAP_RATE_LIMIT`); nil: unlimited.
    public var rateLimit: RateLimit?
    /// Stores' notifications per store route and client, an IPv6 client by its /64
    /// (`IAP_NOTIFICATION_RATE_LIMIT`); nil: unlimited.
    public var notificationRateLimit: RateLimit?
    /// A connection silent this long is closed, also one whose request headers never
    /// finish (`IAP_HTTP_IDLE_TIMEOUT`).
    public var idleTimeout: Duration
    /// The most bytes of request headers, each field and all together (`IAP_HTTP_MAX_HEADER_BYTES`).
    public var maxHeaderBytes: Int
    /// How long a client has to send one whole request, headers and body, from its first
    /// byte (`IAP_REQUEST_TIMEOUT_SECONDS`): the idle timeout starts again with every byte.
    public var requestTimeout: Duration
    /// The most connections open at once (`IAP_HTTP_MAX_CONNECTIONS`), fitted under the
    /// process's file limit; more are closed at accept.
    public var maxConnections: Int
    /// The most connections open at once from one client address, or one IPv6 /64
    /// (`IAP_HTTP_MAX_CONNECTIONS_PER_ADDRESS`); more are closed at accept.
    public var maxConnectionsPerAddress: Int
    /// Rejected notifications are deleted this long after their verdict
    /// (`IAP_REJECTED_NOTIFICATION_RETENTION_HOURS`).
    public var rejectedNotificationRetention: Duration
    /// The longest a commit of one receipt waits for the next, when the arrival rate says it
    /// is due that soon (`IAP_INTAKE_COMMIT_WAIT_MS`; zero: never).
    public var commitWait: Duration = defaultCommitWait
    /// How long committed receipts wait for company before the relay publishes them
    /// (`IAP_RELAY_PACK_WAIT_MS`; zero: never), ``Relay/Configuration/packWait``.
    public var packWait: Duration = defaultPackWait
    /// The stores configured here: their members of `POST /v1/receipts` and their
    /// `POST /v1/<store>/notifications` (set where the stage is composed; each store's
    /// settings are its plug-in's). None by default: such an intake takes orders only.
    public var stores: StoreRegistry = .none
    /// The stores of each app of `IAP_APPS` but the default app, by app id: a token of the
    /// app posts its receipts with their members, and a store's notification is taken when
    /// any app's credential for it holds (the validator routes it to its app).
    public var appStores: [String: StoreRegistry] = [:]
    /// What each app but the default app sells, by app id: its orders and offers are priced
    /// by it (the default app's is the intake's catalog).
    public var appCatalogs: [String: Catalog] = [:]

    /// The stores a request acting for `app` posts receipts to.
    func stores(of app: AppScope) -> StoreRegistry {
        guard !app.isDefault, let id = app.id else { return stores }
        return appStores[id] ?? stores
    }

    public static let defaultRateLimit = RateLimit(perSecond: 1000, burst: 5000)
    public static let defaultCommitWait: Duration = .milliseconds(3)
    public static let defaultPackWait: Duration = .milliseconds(20)
    public static let defaultNotificationRateLimit = RateLimit(perSecond: 50, burst: 200)

    public init(
        host: String = "127.0.0.1", port: Int = 8080, apiTokens: [String], maxBodySize: Int = 1 << 20,
        orderLifetime: Duration = .seconds(1800), rateLimit: RateLimit? = defaultRateLimit,
        notificationRateLimit: RateLimit? = defaultNotificationRateLimit, idleTimeout: Duration = .seconds(15),
        maxHeaderBytes: Int = 16 * 1024, requestTimeout: Duration = .seconds(30), maxConnections: Int = 10_000,
        maxConnectionsPerAddress: Int = 1_000, rejectedNotificationRetention: Duration = .seconds(7 * 86_400)
    ) {
        self.host = host
        self.port = port
        self.apiTokens = apiTokens
        self.tokens = APITokens(unchecked: apiTokens)
        self.maxBodySize = maxBodySize
        self.orderLifetime = orderLifetime
        self.rateLimit = rateLimit
        self.notificationRateLimit = notificationRateLimit
        self.idleTimeout = idleTimeout
        self.maxHeaderBytes = maxHeaderBytes
        self.requestTimeout = requestTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.rejectedNotificationRetention = rejectedNotificationRetention
    }

    /// Reads `IAP_HTTP_HOST`, `IAP_HTTP_PORT`, `IAP_API_TOKENS`, `IAP_API_TOKENS_FILE`,
    /// `IAP_ORDER_TTL_SECONDS`, `IAP_RATE_LIMIT`, `IAP_NOTIFICATION_RATE_LIMIT`,
    /// `IAP_HTTP_IDLE_TIMEOUT`, `IAP_HTTP_MAX_HEADER_BYTES`, `IAP_REQUEST_TIMEOUT_SECONDS`,
    /// `IAP_HTTP_MAX_CONNECTIONS`, `IAP_HTTP_MAX_CONNECTIONS_PER_ADDRESS`,
    /// `IAP_REJECTED_NOTIFICATION_RETENTION_HOURS`, `IAP_INTAKE_COMMIT_WAIT_MS` and
    /// `IAP_RELAY_PACK_WAIT_MS`; the apps' tokens in `apps`.
    /// - Parameters:
    ///   - apps: The apps file (`IAP_APPS`) as the process read it, with every registered
    ///     store's members; nil without one.
    ///   - defaultTokens: used when neither `IAP_API_TOKENS`, the file nor `apps` is set
    ///     (local runs only).
    public init(environment env: EnvironmentReader, apps: AppsFile?, defaultTokens: [String] = [])
        throws(SettingError)
    {
        let file = env.optional("IAP_API_TOKENS_FILE")
        let listed = Self.defaultAppTokens(env.list("IAP_API_TOKENS"), apps: apps)
        let chosen = listed.isEmpty && file == nil && apps == nil ? defaultTokens : listed
        self.init(
            host: env.string("IAP_HTTP_HOST", default: "127.0.0.1"),
            port: try env.int("IAP_HTTP_PORT", default: 8080, range: 0...65535),
            apiTokens: chosen,
            orderLifetime: .seconds(try env.int("IAP_ORDER_TTL_SECONDS", default: 1800, range: 10...(30 * 86_400))),
            rateLimit: try env.rateLimit("IAP_RATE_LIMIT", default: "1000/s burst 5000"),
            notificationRateLimit: try env.rateLimit("IAP_NOTIFICATION_RATE_LIMIT", default: "50/s burst 200"),
            idleTimeout: .seconds(try env.int("IAP_HTTP_IDLE_TIMEOUT", default: 15, range: 1...3600)),
            maxHeaderBytes: try env.int("IAP_HTTP_MAX_HEADER_BYTES", default: 16 * 1024, range: 1024...(1 << 20)),
            requestTimeout: .seconds(try env.int("IAP_REQUEST_TIMEOUT_SECONDS", default: 30, range: 1...3600)),
            maxConnections: try env.int("IAP_HTTP_MAX_CONNECTIONS", default: 10_000, range: 1...1_000_000),
            maxConnectionsPerAddress: try env.int(
                "IAP_HTTP_MAX_CONNECTIONS_PER_ADDRESS", default: 1_000, range: 1...1_000_000),
            rejectedNotificationRetention: .seconds(
                3600 * (try env.int("IAP_REJECTED_NOTIFICATION_RETENTION_HOURS", default: 168, range: 1...87_600))))
        tokens = try Self.tokens(chosen, file: file, apps: apps)
        commitWait = .milliseconds(
            try env.int(
                "IAP_INTAKE_COMMIT_WAIT_MS", default: Int(Self.defaultCommitWait.milliseconds), range: 0...50))
        packWait = .milliseconds(
            try env.int("IAP_RELAY_PACK_WAIT_MS", default: Int(Self.defaultPackWait.milliseconds), range: 0...1000))
    }
}
