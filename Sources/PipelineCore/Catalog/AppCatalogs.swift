/// Each app's catalog (issue 30): what a credit or a debit of an account is priced by is
/// the catalog of the account's app. With the single-app settings there is one.
public struct AppCatalogs: Sendable {
    /// The default app's (bare account ids), and every app's without one of its own.
    public var defaultCatalog: Catalog
    /// The other apps' catalogs, by app id.
    public var others: [String: Catalog]

    public init(_ defaultCatalog: Catalog, others: [String: Catalog] = [:]) {
        self.defaultCatalog = defaultCatalog
        self.others = others
    }

    /// The catalog of the app of `account`, a stored account id (``AppScope/stored(_:)``).
    public func catalog(forAccount account: String) -> Catalog {
        AppScope.appID(of: account).flatMap { others[$0] } ?? defaultCatalog
    }

    /// Every catalog, the default app's first.
    public var all: [Catalog] { [defaultCatalog] + others.keys.sorted().map { others[$0]! } }

    /// Whether `entitlement` of `account` (a stored id) is an auto-renewable subscription's
    /// by the catalog of the account's app: the same name may renew in one app and be
    /// granted for good in another.
    public func renews(_ entitlement: String, forAccount account: String) -> Bool {
        catalog(forAccount: account).renewingEntitlements.contains(entitlement)
    }
}
