/// How an operator's tool names accounts: as the app's backend knows them when it looks at
/// one app, as `<app>/<account>` when it looks at every app.
public struct AccountNaming: Sendable, Hashable {
    public var apps: AppDirectory
    /// The one app looked at; nil for every app.
    public var scope: AppScope?

    /// - Parameters:
    ///   - apps: the deployment's apps.
    ///   - scope: the app an operator picked, or nil for every app.
    public init(apps: AppDirectory, scope: AppScope? = nil) {
        self.apps = apps
        self.scope = scope
    }

    /// A stored account id as this view shows it.
    public func name(_ stored: String) -> String {
        guard let scope else { return apps.label(stored) }
        return scope.shown(stored) ?? apps.label(stored)
    }

    /// The stored id of an account an operator typed: the app's own id in one app, else a
    /// label or a stored id.
    public func stored(_ account: String) -> String {
        guard let scope else { return apps.stored(account) }
        return scope.stored(account)
    }

    /// The ids under which `text` may be stored: in one app, its id there and the text itself
    /// (a receipt or order id leads anywhere, so matches are kept to the app after); in every
    /// app, the text and, for a bare player id, the same player in each other app.
    public func candidates(_ text: String) -> [String] {
        var texts = [stored(text)]
        if scope != nil {
            texts.append(text)
        } else if AppScope.appID(of: text) == nil {
            texts += apps.scopes.filter { !$0.isDefault && $0.id != nil }.map { $0.stored(text) }
        }
        var seen = Set<String>()
        return texts.filter { seen.insert($0).inserted }
    }

    /// Whether a stored account id is one this view shows.
    public func includes(_ stored: String) -> Bool {
        scope.map { $0.shown(stored) != nil } ?? true
    }
}
