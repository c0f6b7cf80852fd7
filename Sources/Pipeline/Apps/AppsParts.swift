import PipelineCore
import StorePlugins

/// The apps a pipeline serves with `IAP_APPS` (issue 30), as the validator and the fulfiller
/// compose them: the default app's stores and catalog are ``StageParts/stores`` and
/// ``StageParts/catalog``; every other app brings its own.
public struct AppsParts: Sendable {
    /// What one app other than the default app is served with.
    public struct App: Sendable {
        /// Its stores, as its members of the apps file configure them.
        public var stores: StoreRegistry
        public var catalog: Catalog

        public init(stores: StoreRegistry, catalog: Catalog) {
            self.stores = stores
            self.catalog = catalog
        }
    }

    /// The first app of the file, whose accounts keep bare ids.
    public var defaultApp: String
    /// The other apps, by id.
    public var others: [String: App]
    /// Which app each store identity names (Apple bundle ids, Google package names).
    public var identities: [String: String]

    public init(defaultApp: String, others: [String: App], identities: [String: String]) {
        self.defaultApp = defaultApp
        self.others = others
        self.identities = identities
    }

    /// The identities of every app but `app`: what its verifiers refuse naming their app.
    public func otherApps(than app: String) -> OtherApps {
        OtherApps(identities.filter { $0.value != app })
    }
}
