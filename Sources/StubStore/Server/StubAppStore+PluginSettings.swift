import Foundation

extension StubAppStore {
    /// The settings that point the plug-in stores at this stub served at `baseURL`, as their
    /// environment variables: part of what the demo points `iap up` at (``pipelineSettings(baseURL:intakeURL:directory:)``),
    /// and what the end-to-end tests run with.
    /// - Parameter stripeWebhookSecrets: the secrets Stripe's events are signed with (the
    ///   stub signs with whichever the caller asks for).
    public func pluginStoreSettings(baseURL: String, stripeWebhookSecrets: [String]) -> [String: [String: String]] {
        [
            "huawei": [
                "IAP_HUAWEI_CLIENT_ID": StubHuawei.clientID,
                "IAP_HUAWEI_CLIENT_SECRET": StubHuawei.clientSecret,
                "IAP_HUAWEI_PUBLIC_KEY": huawei.publicKeyBase64,
                "IAP_HUAWEI_OAUTH_URL": baseURL + "/huawei/oauth2/v3/token",
                "IAP_HUAWEI_ORDER_URL": baseURL + "/huawei/orders",
                "IAP_HUAWEI_SUBSCRIPTION_URL": baseURL + "/huawei/subscr",
            ],
            "stripe": [
                "IAP_STRIPE_API_KEY": stripe.configuration.withLock { $0.apiKey },
                "IAP_STRIPE_WEBHOOK_SECRETS": stripeWebhookSecrets.joined(separator: ","),
                "IAP_STRIPE_API_URL": baseURL + "/stripe",
            ],
        ]
    }
}
