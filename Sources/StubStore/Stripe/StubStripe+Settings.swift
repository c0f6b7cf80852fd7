extension StubStripe: StubStorePart {
    /// Stripe's plug-in's id (the lab's stubs do not link the plug-in).
    public static let storeID = "stripe"

    /// The stub's key, the secrets its events are signed with, and its API.
    public func settings(_ base: StubStoreBase) throws -> [String: String] {
        [
            "IAP_STRIPE_API_KEY": configuration.withLock { $0.apiKey },
            "IAP_STRIPE_WEBHOOK_SECRETS": base.webhookSecrets.joined(separator: ","),
            "IAP_STRIPE_API_URL": base.url + "/stripe",
        ]
    }
}
