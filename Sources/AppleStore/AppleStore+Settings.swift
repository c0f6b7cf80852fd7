import AppStore
import PipelineCore

extension AppleStore {
    /// Where legacy receipts are verified, for which app, and whether the App Store Server API is on.
    public var summary: String {
        let receipts = setup.receiptVerification.rawValue
        return
            "verifyReceipt \(setup.verifyReceipt.productionURL)  bundle: \(setup.verifyReceipt.bundleID)  receipts: \(receipts)"
            + (setup.serverAPIKey == nil ? "  server API: off (set IAP_APPSTORE_PRIVATE_KEY)" : "  server API: on")
    }

    public static let variablePrefixes = [
        "IAP_VERIFY_", "IAP_BUNDLE_ID", "IAP_SHARED_SECRET", "IAP_APPSTORE_", "IAP_APPLE_", "IAP_APP_APPLE_ID",
        "IAP_RECEIPT_",
    ]

    /// `apple:` in an app of the apps file.
    public static let appsFileSection = AppsFileSection(
        "apple",
        members: [
            "bundle_id": .init(variable: "IAP_BUNDLE_ID", isIdentity: true),
            "app_apple_id": .init(variable: "IAP_APP_APPLE_ID"),
            "environment": .init(variable: "IAP_APPSTORE_ENVIRONMENT"),
            // App Store Connect gives each app a secret of its own; the account's primary
            // secret, which serves every app, is refused here: rotating it for one app breaks
            // the others.
            "shared_secret": .init(variable: "IAP_SHARED_SECRET", isSecret: true, isUnique: true),
            // A team key may call for every app of the team, but then one leaked or revoked key
            // is every app's: each app has a key of its own (the key id names the key, so it too).
            "server_api.key_id": .init(variable: "IAP_APPSTORE_KEY_ID", isUnique: true),
            // The team's: every app of one team has the same issuer.
            "server_api.issuer_id": .init(variable: "IAP_APPSTORE_ISSUER_ID"),
            // The .p8 file's path.
            "server_api.private_key": .init(variable: "IAP_APPSTORE_PRIVATE_KEY", isUnique: true),
        ],
        required: [
            "": ["bundle_id"],
            "server_api": ["server_api.key_id", "server_api.issuer_id", "server_api.private_key"],
        ])
}
