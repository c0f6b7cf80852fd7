import PipelineCore

/// The members an app of the apps file may have, each the per-app twin of a single-app
/// setting: an app is read by the very parsers that read the environment, over the
/// variables its members stand for, so one rule checks a setting wherever it is written.
extension AppsFile {
    public struct Member: Sendable {
        /// The single-app variable it stands for.
        public var variable: String
        /// A list (`[a, b]` in the file, comma-separated in the variable).
        public var isList = false
        /// Never printed, not even in an error.
        public var isSecret = false
        /// Each value names this app alone: two apps with one are refused.
        public var isUnique = false
    }

    /// Every member, by its dotted path in an app.
    ///
    /// Unique: what names one app (its tokens, bundle id, package names, Huawei client id)
    /// and every store credential. A credential two apps share lets one app's notifications,
    /// signed or pushed with it, pass as the other's, and one app's rotation or revocation
    /// cuts the other off. The values are compared as written: two paths to one key file
    /// (`private_key`, `service_account`) are not caught.
    public static let members: [String: Member] = [
        "catalog": Member(variable: "IAP_CATALOG"),
        "api_tokens": Member(variable: "IAP_API_TOKENS", isList: true, isSecret: true, isUnique: true),
        "webhook.url": Member(variable: "IAP_WEBHOOK_URL"),
        "webhook.secret": Member(variable: "IAP_WEBHOOK_SECRET", isSecret: true),
        "apple.bundle_id": Member(variable: "IAP_BUNDLE_ID", isUnique: true),
        "apple.app_apple_id": Member(variable: "IAP_APP_APPLE_ID"),
        "apple.environment": Member(variable: "IAP_APPSTORE_ENVIRONMENT"),
        // App Store Connect gives each app a secret of its own; the account's primary secret,
        // which serves every app, is refused here: rotating it for one app breaks the others.
        "apple.shared_secret": Member(variable: "IAP_SHARED_SECRET", isSecret: true, isUnique: true),
        // A team key may call for every app of the team, but then one leaked or revoked key is
        // every app's: each app has a key of its own (the key id names the key, so it too).
        "apple.server_api.key_id": Member(variable: "IAP_APPSTORE_KEY_ID", isUnique: true),
        // The team's: every app of one team has the same issuer.
        "apple.server_api.issuer_id": Member(variable: "IAP_APPSTORE_ISSUER_ID"),
        // The .p8 file's path.
        "apple.server_api.private_key": Member(variable: "IAP_APPSTORE_PRIVATE_KEY", isUnique: true),
        "google_play.package_names": Member(variable: "IAP_GOOGLE_PACKAGE_NAMES", isList: true, isUnique: true),
        // The key file's path: one app's own Play access, revoked or rotated alone.
        "google_play.service_account": Member(variable: "IAP_GOOGLE_SERVICE_ACCOUNT", isUnique: true),
        // The audience is what tells one app's push subscription from another's.
        "google_play.push_audience": Member(variable: "IAP_GOOGLE_PUSH_AUDIENCE", isUnique: true),
        // Names who signs the pushes, not the app: one service account may push every app's
        // subscription, each under its own audience.
        "google_play.push_service_account": Member(variable: "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT"),
        "huawei.client_id": Member(variable: "IAP_HUAWEI_CLIENT_ID", isUnique: true),
        "huawei.client_secret": Member(variable: "IAP_HUAWEI_CLIENT_SECRET", isSecret: true, isUnique: true),
        // Signs one app's purchase data and notifications: shared, one app's signed
        // notifications verify as the other's. Public, but too long to print.
        "huawei.public_key": Member(variable: "IAP_HUAWEI_PUBLIC_KEY", isUnique: true),
        // Reads one Stripe account: two apps on one account see each other's sessions and charges.
        "stripe.api_key": Member(variable: "IAP_STRIPE_API_KEY", isSecret: true, isUnique: true),
        // One webhook endpoint's: shared, one app's events verify as the other's.
        "stripe.webhook_secrets": Member(
            variable: "IAP_STRIPE_WEBHOOK_SECRETS", isList: true, isSecret: true, isUnique: true),
    ]

    /// What an app that names a store (or a part of one) must give for it: a credential
    /// missing here would leave the store half set up for that app.
    public static let requiredWith: [(part: String, members: [String])] = [
        ("apple", ["apple.bundle_id"]),
        (
            "apple.server_api",
            ["apple.server_api.key_id", "apple.server_api.issuer_id", "apple.server_api.private_key"]
        ),
        ("google_play", ["google_play.package_names", "google_play.service_account"]),
        ("huawei", ["huawei.client_id", "huawei.client_secret", "huawei.public_key"]),
        ("stripe", ["stripe.api_key", "stripe.webhook_secrets"]),
        ("webhook", ["webhook.url", "webhook.secret"]),
    ]

    /// Every variable an app's members stand for: an app's settings hold only its own.
    public static let perAppVariables = Set(members.values.map(\.variable))

    /// The member a per-app variable stands for, to name it in errors.
    public static func member(for variable: String) -> String? {
        members.first { $0.value.variable == variable }?.key
    }

    /// `error` of a per-app variable, told by the member that stands for it.
    public static func named(_ error: SettingError, app: String) -> SettingError {
        failure("app \(app): \(member(for: error.variable) ?? error.variable) \(error.problem)")
    }
}
