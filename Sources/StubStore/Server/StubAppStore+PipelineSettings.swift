import Foundation

extension StubAppStore {
    /// The demo's backend token and console operator: local use only, printed in the README.
    public static let demoToken = "dev-token-change-me-0001"
    public static let demoOperator = "admin:dev-console-change-me:adjust"

    /// The settings that point a pipeline at this stub served at `baseURL` for every store, as
    /// the environment variables `iap` reads: Apple's endpoints and roots (StoreKit data signed
    /// for Sandbox under the stub's CA), Google Play's API, service account and pushes (to the
    /// intake at `intakeURL`), Huawei and Stripe; and the demo's backend token and console
    /// operator. The roots and the service account are written as files into `directory`.
    /// - Throws: when a file cannot be written.
    public func pipelineSettings(baseURL: String, intakeURL: String, directory: String) throws -> [String: String] {
        let directory = directory.isEmpty ? "." : directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func write(_ name: String, _ bytes: some Sequence<UInt8>) throws -> String {
            let path = (directory as NSString).appendingPathComponent(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            return path
        }
        let stripeSecret = "whsec_" + (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        var settings = [
            "IAP_VERIFY_URL": baseURL + "/verifyReceipt", "IAP_VERIFY_SANDBOX_URL": baseURL + "/sandbox/verifyReceipt",
            "IAP_BUNDLE_ID": configuration.bundleID, "IAP_APPSTORE_ENVIRONMENT": "Sandbox",
            "IAP_APPLE_ROOT_CA": try write("stub-storekit-root.der", storeKit.rootDER),
            "IAP_RECEIPT_ROOT_CA": try write("stub-receipt-root.der", receiptAuthority.rootDER),
            "IAP_GOOGLE_PLAY_API_URL": baseURL + "/google",
            "IAP_GOOGLE_SERVICE_ACCOUNT": try write(
                "stub-google-service-account.json", Array(googlePlay.serviceAccountJSON(baseURL: baseURL))),
            "IAP_GOOGLE_PUSH_AUDIENCE": intakeURL + "/v1/google/notifications",
            "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT": StubGooglePlay.pushServiceAccount,
            "IAP_GOOGLE_CERTS_URL": baseURL + StubGooglePlay.certsPath,
            "IAP_API_TOKENS": Self.demoToken, "IAP_CONSOLE_OPERATORS": Self.demoOperator,
        ]
        if let secret = configuration.sharedSecret { settings["IAP_SHARED_SECRET"] = secret }
        for store in pluginStoreSettings(baseURL: baseURL, stripeWebhookSecrets: [stripeSecret]).values {
            settings.merge(store) { mine, _ in mine }
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
