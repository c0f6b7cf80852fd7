import Foundation
import PipelineCore

extension AppleSetup {
    /// Apple from its variables: `IAP_VERIFY_URL`, `IAP_VERIFY_SANDBOX_URL`, `IAP_BUNDLE_ID`,
    /// `IAP_SHARED_SECRET` for legacy receipts, with `IAP_RECEIPT_VERIFICATION`,
    /// `IAP_RECEIPT_ROOT_CA` and `IAP_RECEIPT_XCODE_CERT` for checking them locally;
    /// `IAP_APPSTORE_ENVIRONMENT`, `IAP_APP_APPLE_ID` and `IAP_APPLE_ROOT_CA` for StoreKit 2
    /// signed data (refused in Production without the app's Apple id); `IAP_APPSTORE_PRIVATE_KEY`,
    /// `IAP_APPSTORE_KEY_ID` and `IAP_APPSTORE_ISSUER_ID` (all or none) for the App Store
    /// Server API, at `IAP_APPSTORE_API_URL` and `IAP_APPSTORE_API_SANDBOX_URL` if set.
    /// - Throws: ``SettingError`` naming the variable at fault, never a secret.
    public init(environment env: EnvironmentReader) throws(SettingError) {
        let bundleID = env.string("IAP_BUNDLE_ID", default: "com.example.game")
        guard bundleID.count <= 255,
            bundleID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_".contains($0)) })
        else {
            throw SettingError(variable: "IAP_BUNDLE_ID", problem: "must be a bundle id such as com.example.game")
        }
        self.init(
            verifyReceipt: .init(
                bundleID: bundleID,
                productionURL: try env.httpURL(
                    "IAP_VERIFY_URL", default: VerifyReceiptVerifier.Configuration.appleProductionURL)!,
                sandboxURL: try env.httpURL(
                    "IAP_VERIFY_SANDBOX_URL", default: VerifyReceiptVerifier.Configuration.appleSandboxURL)!,
                sharedSecret: env.optional("IAP_SHARED_SECRET")))
        signedData = try Self.signedData(env, bundleID: bundleID)
        if let signedData {
            notificationSignatures = signedData.authenticator
        } else if let roots = try AppleRootSetting.roots(env) {
            do {
                notificationSignatures = try SignedDataAuthenticator(rootCertificates: roots)
            } catch {
                throw SettingError(variable: AppleRootSetting.variable, problem: "\(error)")
            }
        }
        serverAPIKey = try Self.serverAPIKey(env, bundleID: bundleID)
        if serverAPIKey != nil {
            if let url = try env.httpURL("IAP_APPSTORE_API_URL") { serverAPI.productionBaseURL = url }
            if let url = try env.httpURL("IAP_APPSTORE_API_SANDBOX_URL") { serverAPI.sandboxBaseURL = url }
        }
        appReceipt = try Self.appReceipt(environment: env, bundleID: bundleID)
        receiptVerification = try env.choice(
            "IAP_RECEIPT_VERIFICATION",
            Dictionary(uniqueKeysWithValues: ReceiptVerificationMode.allCases.map { ($0.rawValue, $0) }),
            default: ReceiptVerificationMode.apple.rawValue)
    }

    /// StoreKit 2 verification, or nil in Production without `IAP_APP_APPLE_ID`.
    private static func signedData(_ env: EnvironmentReader, bundleID: String)
        throws(SettingError) -> SignedDataVerifier?
    {
        let choices: [String: AppStoreEnvironment] = ["Production": .production, "Sandbox": .sandbox]
        let environment = try env.choice(
            "IAP_APPSTORE_ENVIRONMENT", choices, default: AppStoreEnvironment.production.rawValue)
        var appAppleID: Int64?
        if let raw = env.optional("IAP_APP_APPLE_ID") {
            guard let id = Int64(raw), id > 0 else {
                throw SettingError(
                    variable: "IAP_APP_APPLE_ID", problem: "must be the app's numeric Apple id, got '\(raw)'")
            }
            appAppleID = id
        }
        let roots = try AppleRootSetting.roots(env)
        if environment == .production, appAppleID == nil { return nil }
        do {
            return try SignedDataVerifier(
                rootCertificates: roots ?? [SignedDataVerifier.appleRootCAG3], bundleID: bundleID,
                appAppleID: appAppleID, environment: environment)
        } catch {
            throw SettingError(variable: AppleRootSetting.variable, problem: "\(error)")
        }
    }

    /// The App Store Server API's key, from all three of its variables or none.
    private static func serverAPIKey(_ env: EnvironmentReader, bundleID: String) throws(SettingError)
        -> AppStoreServerAPIKey?
    {
        let credentials = ["IAP_APPSTORE_PRIVATE_KEY", "IAP_APPSTORE_KEY_ID", "IAP_APPSTORE_ISSUER_ID"]
        guard credentials.contains(where: { env.optional($0) != nil }) else { return nil }
        guard let keyPath = env.optional("IAP_APPSTORE_PRIVATE_KEY"), let keyID = env.optional("IAP_APPSTORE_KEY_ID"),
            let issuerID = env.optional("IAP_APPSTORE_ISSUER_ID")
        else {
            let missing = credentials.first { env.optional($0) == nil } ?? credentials[0]
            throw SettingError(
                variable: missing, problem: "is required with the other App Store Server API credentials")
        }
        guard let pem = FileManager.default.contents(atPath: keyPath).flatMap({ String(data: $0, encoding: .utf8) })
        else {
            throw SettingError(variable: "IAP_APPSTORE_PRIVATE_KEY", problem: "cannot read \(keyPath)")
        }
        do {
            return try AppStoreServerAPIKey(privateKeyPEM: pem, keyID: keyID, issuerID: issuerID, bundleID: bundleID)
        } catch {
            throw SettingError(variable: "IAP_APPSTORE_PRIVATE_KEY", problem: "\(error)")
        }
    }
}
