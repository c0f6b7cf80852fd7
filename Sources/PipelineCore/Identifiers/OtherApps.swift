/// The other apps of a pipeline by the store identities that name them (an Apple bundle id,
/// a Google package name), as one app's verifier sees them: a genuine receipt of another
/// app is refused naming that app, so its backend learns where it went wrong (issue 30).
public struct OtherApps: Sendable, Hashable {
    /// App id by bundle id or package name; never the verifying app's own.
    public var byIdentity: [String: String]

    /// No other app: the single-app settings.
    public static let none = OtherApps([:])

    public init(_ byIdentity: [String: String]) {
        self.byIdentity = byIdentity
    }

    /// The rejection of a receipt for `identity` when it is another app's, else nil.
    public func rejection(for identity: String?) -> String? {
        identity.flatMap { byIdentity[$0] }.map(Self.rejection(belongsTo:))
    }

    /// The reason a receipt or notification of app `app` is refused by another app.
    public static func rejection(belongsTo app: String) -> String { "app_mismatch: belongs to \(app)" }
}
