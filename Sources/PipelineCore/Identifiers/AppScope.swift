/// The app a request acts for, and how its account ids are written in the database.
///
/// The default app keeps bare ids (so every row written before apps existed is its own);
/// another app's accounts are stored `<app>/<account>`. The intake refuses `/` in the ids a
/// backend sends, so a stored id names its app without ambiguity.
public struct AppScope: Sendable, Hashable {
    /// The app's id in the apps file; nil for the single-app settings.
    public let id: String?
    /// Whether its accounts keep bare ids.
    public let isDefault: Bool

    /// The one app of a deployment configured with the single-app settings.
    public static let single = AppScope(id: nil, isDefault: true)

    /// An app of the apps file; `isDefault` for the first.
    public init(app id: String, isDefault: Bool) {
        self.init(id: id, isDefault: isDefault)
    }

    private init(id: String?, isDefault: Bool) {
        self.id = id
        self.isDefault = isDefault
    }

    /// The separator between an app and its account in a stored id.
    public static let separator: Character = "/"

    /// `account` (as the backend sent it) as the database keys it.
    public func stored(_ account: String) -> String {
        guard !isDefault, let id else { return account }
        return "\(id)\(Self.separator)\(account)"
    }

    /// A stored account id as this app's backend knows it, or nil when it is another app's.
    /// With the single-app settings every row is the one app's, as before apps.
    public func shown(_ stored: String) -> String? {
        guard let id else { return stored }
        guard !isDefault else { return stored.contains(Self.separator) ? nil : stored }
        let prefix = "\(id)\(Self.separator)"
        return stored.hasPrefix(prefix) ? String(stored.dropFirst(prefix.count)) : nil
    }

    /// The app of a stored account id: nil for the default app's (a bare id).
    public static func appID(of stored: String) -> String? {
        stored.firstIndex(of: separator).map { String(stored[..<$0]) }
    }

    /// A stored account id as its app's backend sent it, whichever app it is.
    public static func bare(_ stored: String) -> String {
        stored.firstIndex(of: separator).map { String(stored[stored.index(after: $0)...]) } ?? stored
    }

    // MARK: - The app a row belongs to

    /// This app as rows key it in their `app` column: `""` for the default app (and the one
    /// app of the single-app settings), whose accounts keep bare ids; else its id. A row keyed
    /// by an account carries the same in the account's id (``stored(_:)``).
    public var key: String { isDefault ? "" : id ?? "" }

    /// The key (``key``) of the app a stored account id belongs to.
    public static func key(ofStored stored: String) -> String { appID(of: stored) ?? "" }

    /// `account`, as a store or a backend of the app keyed `appKey` names it, as the database keys it.
    public static func stored(_ account: String, appKey: String) -> String {
        appKey.isEmpty ? account : "\(appKey)\(separator)\(account)"
    }
}
