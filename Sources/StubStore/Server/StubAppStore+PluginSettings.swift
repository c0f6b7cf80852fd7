import Foundation

extension StubAppStore {
    /// The settings that point the plug-in stores at this stub served at `baseURL`, by store
    /// id, as their environment variables: what the end-to-end tests run with. A store whose
    /// plug-in needs a file (Google's service account) gives none here: tests set it up by hand.
    /// - Parameter stripeWebhookSecrets: the secrets Stripe's events are signed with (the
    ///   stub signs with whichever the caller asks for).
    public func pluginStoreSettings(baseURL: String, stripeWebhookSecrets: [String]) -> [String: [String: String]] {
        let base = StubStoreBase(url: baseURL, webhookSecrets: stripeWebhookSecrets)
        var settings: [String: [String: String]] = [:]
        for part in parts {
            // Without a directory no file is written, so nothing throws.
            if let variables = try? part.settings(base), !variables.isEmpty {
                settings[type(of: part).storeID] = variables
            }
        }
        return settings
    }
}
