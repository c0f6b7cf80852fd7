import PipelineCore

extension StripeStore {
    /// Which mode its key is in, and where its API is asked.
    public var summary: String { (settings.isTestMode ? "test mode" : "live mode") + "  api: \(settings.apiURL)" }

    public static let variablePrefixes = ["IAP_STRIPE_"]

    /// `stripe:` in an app of the apps file.
    public static let appsFileSection = AppsFileSection(
        "stripe",
        members: [
            // Reads one Stripe account: two apps on one account see each other's sessions and charges.
            "api_key": .init(variable: "IAP_STRIPE_API_KEY", isSecret: true, isUnique: true),
            // One webhook endpoint's: shared, one app's events verify as the other's.
            "webhook_secrets": .init(
                variable: "IAP_STRIPE_WEBHOOK_SECRETS", isList: true, isSecret: true, isUnique: true),
        ],
        required: ["": ["api_key", "webhook_secrets"]])
}
