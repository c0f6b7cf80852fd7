import Foundation

extension StubAppStore {
    /// The demo's backend token and console operator: local use only, printed in the README.
    public static let demoToken = "dev-token-change-me-0001"
    public static let demoOperator = "admin:dev-console-change-me:adjust"

    /// The settings that point a pipeline at this stub served at `baseURL` for every store, as
    /// the environment variables `iap` reads: Apple's endpoints and roots (StoreKit data signed
    /// for Sandbox under the stub's CA), every other store's as its part says (``parts``:
    /// Google Play's pushes addressed to the intake at `intakeURL`); and the demo's backend
    /// token and console operator. The roots and the service account are written as files
    /// into `directory`.
    /// - Throws: when a file cannot be written.
    public func pipelineSettings(baseURL: String, intakeURL: String, directory: String) throws -> [String: String] {
        let directory = directory.isEmpty ? "." : directory
        let stripeSecret = "whsec_" + (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let base = StubStoreBase(
            url: baseURL, intakeURL: intakeURL, webhookSecrets: [stripeSecret], directory: directory)
        var settings = [
            "IAP_VERIFY_URL": baseURL + "/verifyReceipt", "IAP_VERIFY_SANDBOX_URL": baseURL + "/sandbox/verifyReceipt",
            "IAP_BUNDLE_ID": configuration.bundleID, "IAP_APPSTORE_ENVIRONMENT": "Sandbox",
            "IAP_APPLE_ROOT_CA": try base.write("stub-storekit-root.der", storeKit.rootDER),
            "IAP_RECEIPT_ROOT_CA": try base.write("stub-receipt-root.der", receiptAuthority.rootDER),
            "IAP_API_TOKENS": Self.demoToken, "IAP_CONSOLE_OPERATORS": Self.demoOperator,
        ]
        if let secret = configuration.sharedSecret { settings["IAP_SHARED_SECRET"] = secret }
        for part in parts {
            settings.merge(try part.settings(base)) { mine, _ in mine }
        }
        return settings
    }

    /// `settings` as a file the shell reads (`set -a; . file`): one `NAME='value'` a line.
    public static func shellFile(_ settings: [String: String]) -> String {
        settings.keys.sorted().map { name in
            "\(name)='" + settings[name]!.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }.joined(separator: "\n") + "\n"
    }
}
