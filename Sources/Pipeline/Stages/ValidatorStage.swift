import Broker
import Logging
import PipelineCore
import ServiceLifecycle
import StorePlugins
import Validator

/// The validator's composition root: every store's evidence routed to its store's verifier
/// (Apple's among them), over one HTTP client sized to the verifications in flight.
public enum ValidatorStage {
    /// - Parameter budgets: where the stores' call budgets are kept (the pipeline's database,
    ///   which every validator sees); nil keeps them in this process, for a validator that
    ///   calls no rate-limited API.
    public static func services(
        _ parts: StageParts, configuration: Validator.Configuration, connection: AMQPConnection,
        budgets: (any CallBudgetKeeper)?
    ) throws -> [any Service] {
        let logger = parts.logger("validator")
        let client = try parts.httpClient(inFlight: configuration.concurrency, logger: logger)
        let budgets = budgets ?? LocalCallBudgetKeeper()
        func verifier(_ stores: StoreRegistry, _ catalog: Catalog, logger: Logger, app: AppScope? = nil) throws
            -> any ReceiptVerifier
        {
            // Each app's calls counted in its own budgets, as the stores count them.
            try PluginStores.verifier(
                stores, httpClient: client, budgets: AppCallBudgets.of(app, in: budgets), catalog: catalog,
                logger: logger)
        }
        let routed: any ReceiptVerifier
        if let apps = parts.apps {
            // Each app's receipts verified with its own stores and catalog, refusing the others'.
            func appVerifier(_ app: String, _ stores: StoreRegistry, _ catalog: Catalog) throws -> any ReceiptVerifier {
                var appLogger = logger
                appLogger[metadataKey: "app"] = "\(app)"
                return try verifier(
                    stores.refusing(apps.otherApps(than: app)), catalog, logger: appLogger,
                    app: AppScope(app: app, isDefault: app == apps.defaultApp))
            }
            var others: [String: any ReceiptVerifier] = [:]
            for (id, app) in apps.others { others[id] = try appVerifier(id, app.stores, app.catalog) }
            routed = AppRoutingVerifier(
                defaultApp: (apps.defaultApp, try appVerifier(apps.defaultApp, parts.stores, parts.catalog)),
                others: others, apps: apps, stores: parts.stores)
        } else {
            routed = try verifier(parts.stores, parts.catalog, logger: logger)
        }
        return [
            HTTPClientService(client: client),
            Validator(
                connection: connection, topology: parts.topology, verifier: routed, configuration: configuration,
                logger: logger),
        ]
    }

    /// Whether a validator calls an API whose budget all validators share (the App Store
    /// Server API, Google's, Huawei's, Stripe's): it then needs the pipeline's database.
    public static func spendsSharedBudgets(_ parts: StageParts) -> Bool {
        ([parts.stores] + (parts.apps?.others.values.map(\.stores) ?? [])).contains {
            $0.configured.values.contains(where: \.talksToStore)
        }
    }
}
