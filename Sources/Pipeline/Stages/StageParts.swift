import Broker
import HTTPClient
import Logging
import PipelineCore
import ServiceLifecycle
import StorePlugins

/// What every stage is composed over: the deployment's plug-in stores, catalog and topology.
/// Apple, which only the validator and the fulfiller call, is given to them apart (`AppleSetup`).
///
/// Each stage has one composition root (``IntakeStage``, ``ValidatorStage``,
/// ``FulfillerStage``, ``NotifierStage``), used by its own command and by ``LocalPipeline``
/// (`iap up`) alike, so that a stage runs the same parts however it is started.
public struct StageParts: Sendable {
    public var topology: PipelineTopology
    public var catalog: Catalog
    /// The plug-in stores configured (``PluginStores/configured(_:)``).
    public var stores: StoreRegistry
    /// CA certificates (PEM) trusted for the stores' endpoints instead of the system's
    /// (`IAP_VERIFY_CA_FILE`), for a private proxy or endpoint in front of them.
    public var caFile: String?
    /// The logger of a part of a stage, by label (`scheduler`, `google-play`, ...).
    public var logger: @Sendable (String) -> Logger
    /// The apps of `IAP_APPS`, each with its stores and catalog; nil with the single-app
    /// settings. ``stores`` and ``catalog`` are then the default app's.
    public var apps: AppsParts?

    public init(
        topology: PipelineTopology, catalog: Catalog, stores: StoreRegistry,
        caFile: String? = nil, logger: @escaping @Sendable (String) -> Logger
    ) {
        self.topology = topology
        self.catalog = catalog
        self.stores = stores
        self.caFile = caFile
        self.logger = logger
    }

    /// A client to the stores for `inFlight` calls at once: as many connections to one host
    /// (over HTTP/1.1 each request needs its own), else it caps a stage at its default of 64.
    func httpClient(inFlight: Int = 64, logger: Logger) throws -> CurlHTTPClient {
        try CurlHTTPClient(
            configuration: .init(
                maxConnections: max(256, inFlight + 64), maxConnectionsPerHost: max(64, inFlight), caFile: caFile),
            logger: logger)
    }
}

/// Keeps a stage's HTTP client open until shutdown, then closes it after its users (a
/// service group stops services in reverse order: list it before them).
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
