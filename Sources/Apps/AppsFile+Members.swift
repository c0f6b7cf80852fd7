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
    public static let members: [String: Member] = [
        "catalog": Member(variable: "IAP_CATALOG"),
        "api_tokens": Member(variable: "IAP_API_TOKENS", isList: true, isSecret: true, isUnique: true),
        "webhook.url": Member(variable: "IAP_WEBHOOK_URL"),
        "webhook.secret": Member(variable: "IAP_WEBHOOK_SECRET", isSecret: true),
        "apple.bundle_id": Member(variable: "IAP_BUNDLE_ID", isUnique: true),
        "apple.app_apple_id": Member(variable: "IAP_APP_APPLE_ID"),
        "apple.environment": Member(variable: "IAP_APPSTORE_ENVIRONMENT"),
        "apple.shared_secret": Member(variable: "IAP_SHARED_SECRET", isSecret: true),
        "apple.server_api.key_id": Member(variable: "IAP_APPSTORE_KEY_ID"),
        "apple.server_api.issuer_id": Member(variable: "IAP_APPSTORE_ISSUER_ID"),
        "apple.server_api.private_key": Member(variable: "IAP_APPSTORE_PRIVATE_KEY"),
        "google_play.package_names": Member(variable: "IAP_GOOGLE_PACKAGE_NAMES", isList: true, isUnique: true),
        "google_play.service_account": Member(variable: "IAP_GOOGLE_SERVICE_ACCOUNT"),
        "google_play.push_audience": Member(variable: "IAP_GOOGLE_PUSH_AUDIENCE"),
        "google_play.push_service_account": Member(variable: "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT"),
        "huawei.client_id": Member(variable: "IAP_HUAWEI_CLIENT_ID", isUnique: true),
        "huawei.client_secret": Member(variable: "IAP_HUAWEI_CLIENT_SECRET", isSecret: true),
        "huawei.public_key": Member(variable: "IAP_HUAWEI_PUBLIC_KEY"),
        "stripe.api_key": Member(variable: "IAP_STRIPE_API_KEY", isSecret: true),
        "stripe.webhook_secrets": Member(variable: "IAP_STRIPE_WEBHOOK_SECRETS", isList: true, isSecret: true),
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
