/// The apps of a deployment as an operator's tools name them: which ids exist, and how a
/// stored account id reads when rows of every app are listed together.
///
/// ```swift
/// let apps = AppDirectory(ids: ["puzzle", "racer"])
/// apps.label("player-1")        // "puzzle/player-1": the default app's bare id, named
/// apps.label("racer/player-1")  // "racer/player-1"
/// apps.stored("puzzle/player-1") // "player-1", as the database keys it
/// ```
public struct AppDirectory: Sendable, Hashable {
    /// The apps file's ids in its order; empty with the single-app settings.
    public let ids: [String]

    /// A deployment configured with the single-app settings.
    public static let single = AppDirectory(ids: [])

    /// The name an operator gives the one app of the single-app settings (`--app default`,
    /// the metrics' `app` label).
    public static let singleAppName = "default"

    /// - Parameter ids: the apps file's ids, the default app first.
    public init(ids: [String]) {
        self.ids = ids
    }

    /// Whether this deployment has an apps file.
    public var hasApps: Bool { !ids.isEmpty }

    /// The app `id` names, or nil when this deployment has no such app.
    public func scope(_ id: String) -> AppScope? {
        guard hasApps else { return id == Self.singleAppName ? .single : nil }
        guard let index = ids.firstIndex(of: id) else { return nil }
        return AppScope(app: id, isDefault: index == 0)
    }

    /// Every app, the default first (the one app with the single-app settings).
    public var scopes: [AppScope] {
        hasApps ? ids.enumerated().map { AppScope(app: $0.element, isDefault: $0.offset == 0) } : [.single]
    }

    /// The id of the app a stored account id belongs to (`default` with the single-app
    /// settings); nil for a prefix that names no app, which only a row written by hand has.
    public func appID(of stored: String) -> String? {
        guard hasApps else { return Self.singleAppName }
        guard let app = AppScope.appID(of: stored) else { return ids[0] }
        return ids.contains(app) ? app : nil
    }

    /// The id of the app an app key names (``AppScope/key``: `""` is the default app's).
    public func appID(ofKey key: String) -> String {
        key.isEmpty ? (ids.first ?? Self.singleAppName) : key
    }

    /// A stored account id as it reads beside other apps' rows: `<app>/<account>` for every
    /// app, the default one's included; unchanged with the single-app settings.
    public func label(_ stored: String) -> String {
        guard hasApps, AppScope.appID(of: stored) == nil else { return stored }
        return "\(ids[0])\(AppScope.separator)\(stored)"
    }

    /// The stored id of a label (`puzzle/player-1` is `player-1` when puzzle is the default
    /// app); any other text unchanged, so a stored id is its own label's inverse.
    public func stored(_ label: String) -> String {
        guard let first = ids.first, AppScope.appID(of: label) == first else { return label }
        return AppScope.bare(label)
    }
}
