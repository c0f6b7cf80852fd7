import Amazon
import AppleStore
import Database
import Fulfiller
import GooglePlay
import HTTPClient
import Huawei
import Logging
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter
import StorePlugins
import Stripe
import Xiaomi

/// The plug-in stores this build carries, and what each stage runs for them.
///
/// Adding a store is one line in ``registered`` (and its module in Package.swift): the
/// intake then takes its receipts and notifications, the validator routes its evidence to
/// it, and the fulfiller pays what it is owed, each through ``StoreRegistry``.
public enum PluginStores {
    /// Every store built in, configured by its own settings or left off (Apple and Google
    /// Play are always on).
    public static let registered: [any StorePlugin.Type] = [
        AppleStore.self, GooglePlayStore.self, HuaweiStore.self, StripeStore.self, XiaomiStore.self, AmazonStore.self,
    ]

    /// The registered stores as `environment` configures them, each by its own variables.
    /// - Throws: the first store's ``SettingError``.
    public static func configured(_ environment: EnvironmentReader) throws(SettingError) -> StoreRegistry {
        try StoreRegistry.configure(registered, environment: environment)
    }

    /// Every registered store as an environment without its variables leaves it (Apple on,
    /// with its own endpoints; Google on, without a service account; the others off).
    public static var unconfigured: StoreRegistry {
        (try? configured(EnvironmentReader([:]))) ?? StoreRegistry(known: registered, configured: [])
    }

    /// The verifier that sends each store's evidence to its store, over the validator's
    /// HTTP client and the shared call budgets.
    public static func verifier(
        _ stores: StoreRegistry, httpClient: CurlHTTPClient, budgets: any CallBudgetKeeper, catalog: Catalog,
        logger: Logger
    ) throws -> any ReceiptVerifier {
        for id in stores.configured.keys.sorted() { logger.info("\(id) purchases verified by its plug-in") }
        return try stores.verifier(
            StoreContext(httpClient: httpClient, budgets: budgets, catalog: catalog, logger: logger))
    }

    /// The fulfiller's work for the configured stores: the confirmations their credits owe
    /// (paid as `confirmer` says), and each store's own services (Google's voided poll and
    /// review answers), over `httpClient` (shared, not owned), each job that runs in one
    /// process at a time led as `leadership` says. Nothing when none talks to its store.
    ///
    /// `stores` and `catalog` are the default app's; every other app of `apps` (issue 30) is
    /// served the same way with its own stores, catalog and call budgets: its confirmations
    /// are paid with its credentials, and its services elected under their own names
    /// (`google-voided/<app>`).
    public static func fulfillerServices(
        _ stores: StoreRegistry, database: any SQLDatabase, httpClient: CurlHTTPClient, catalog: Catalog,
        logger: Logger, confirmer: StoreConfirmer.Configuration = .init(), apps: AppsParts? = nil,
        leadership: @escaping @Sendable (String) -> any Leadership
    ) -> [any Service] {
        let others = apps?.others ?? [:]
        guard ([stores] + others.values.map(\.stores)).contains(where: \.runsInFulfiller) else { return [] }
        var context = StoreContext(
            httpClient: httpClient, budgets: MeteredCallBudgets.shared(database), catalog: catalog, logger: logger,
            database: database, leadership: leadership)
        if let apps { context.app = AppScope(app: apps.defaultApp, isDefault: true) }
        var confirming: [String: StoreConfirmer.App] = [:]
        for (id, app) in others {
            confirming[id] = StoreConfirmer.App(stores: app.stores, context: context.of(app: id, catalog: app.catalog))
        }
        var services: [any Service] = [
            StoreConfirmer(
                store: ConfirmationRepository(database), stores: stores, context: context, others: confirming,
                configuration: confirmer)
        ]
        let served = [(stores, context)] + others.keys.sorted().map { (others[$0]!.stores, confirming[$0]!.context) }
        for (registry, context) in served {
            services += registry.configured.keys.sorted().flatMap { registry.configured[$0]!.services(context) }
        }
        return services
    }
}

extension StoreRegistry {
    /// Whether one of its stores has work in the fulfiller.
    var runsInFulfiller: Bool { configured.values.contains(where: \.runsInFulfiller) }
}

extension StoreContext {
    /// This (the default app's) context as the non-default app `app` uses it: its catalog,
    /// its call budgets (``AppCallBudgets``), its jobs elected as `<job>/<app>`, its logs
    /// labelled with it.
    func of(app: String, catalog: Catalog) -> StoreContext {
        var context = self
        context.catalog = catalog
        context.app = AppScope(app: app, isDefault: false)
        context.budgets = AppCallBudgets.of(context.app, in: budgets)
        let leadership = self.leadership
        context.leadership = { leadership("\($0)/\(app)") }
        context.logger[metadataKey: "app"] = "\(app)"
        return context
    }
}
