import AppStore
import Foundation
import GooglePlay
import Logging
import Pipeline
import PipelineCore
import StorePlugins

/// How validators verify: `IAP_VERIFY_URL`, `IAP_VERIFY_SANDBOX_URL`, `IAP_BUNDLE_ID`,
/// `IAP_SHARED_SECRET` for legacy receipts, with `IAP_RECEIPT_VERIFICATION`,
/// `IAP_RECEIPT_ROOT_CA` and `IAP_RECEIPT_XCODE_CERT` for checking them locally;
/// `IAP_APPSTORE_ENVIRONMENT`, `IAP_APP_APPLE_ID` and `IAP_APPLE_ROOT_CA` for StoreKit 2 signed data.
struct VerifierSettings: Sendable {
    var productionURL: String
    var sandboxURL: String
    /// `IAP_VERIFY_CA_FILE`: CA certificates (PEM) trusted for the stores' endpoints instead
    /// of the system's, for a private proxy or endpoint in front of them.
    var caFile: String?
    var bundleID: String
    var sharedSecret: String?
    var appStoreEnvironment: AppStoreEnvironment
    var appAppleID: Int64?
    /// DER roots to trust for signed data; nil means Apple Root CA - G3.
    var rootCertificates: [[UInt8]]?
    /// App Store Server API credentials, all or none of `IAP_APPSTORE_PRIVATE_KEY` (a .p8
    /// file), `IAP_APPSTORE_KEY_ID`, `IAP_APPSTORE_ISSUER_ID`.
    var serverAPIKey: AppStoreServerAPIKey?
    var serverAPI = AppStoreServerAPIClient.Configuration()
    /// `IAP_RECEIPT_VERIFICATION`: `local`, `apple` (the default) or `local-then-apple`.
    var receiptVerification = ReceiptVerificationMode.apple
    /// The local checks' roots, bundle id and Xcode certificates.
    var appReceipt: AppReceiptVerifier.Configuration
    /// The plug-in stores the environment configures (``PluginStores``), Google Play among them.
    var stores: StoreRegistry

    /// Google Play's service account and API (`IAP_GOOGLE_SERVICE_ACCOUNT`, ...), read by its
    /// plug-in; nil leaves its purchases rejected.
    var googlePlay: GooglePlaySetup? { (stores.configured[GooglePlayStore.id] as? GooglePlayStore)?.setup }

    /// - Parameter defaultURLs: used when the variables are unset; Apple's endpoints
    ///   unless `iap up` embeds the stub store.
    init(
        environment env: EnvironmentReader, defaultURLs: (production: String, sandbox: String)? = nil,
        defaultAppStoreEnvironment: AppStoreEnvironment = .production, defaultRoot: [UInt8]? = nil,
        defaultReceiptRoot: (@Sendable () -> [UInt8])? = nil
    ) throws(SettingError) {
        let defaults =
            defaultURLs ?? (
                VerifyReceiptVerifier.Configuration.appleProductionURL,
                VerifyReceiptVerifier.Configuration.appleSandboxURL
            )
        productionURL = try env.httpURL("IAP_VERIFY_URL", default: defaults.production)!
        sandboxURL = try env.httpURL("IAP_VERIFY_SANDBOX_URL", default: defaults.sandbox)!
        caFile = env.optional("IAP_VERIFY_CA_FILE")
        if let caFile {
            // libcurl reads the file only at the first request, and a bad one would then fail
            // every verification as a TLS error: refuse it at start instead.
            guard let data = FileManager.default.contents(atPath: caFile) else {
                throw SettingError(variable: "IAP_VERIFY_CA_FILE", problem: "cannot read \(caFile)")
            }
            guard String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
                throw SettingError(variable: "IAP_VERIFY_CA_FILE", problem: "\(caFile) holds no PEM certificate")
            }
        }
        bundleID = env.string("IAP_BUNDLE_ID", default: "com.example.game")
        guard bundleID.count <= 255,
            bundleID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_".contains($0)) })
        else {
            throw SettingError(variable: "IAP_BUNDLE_ID", problem: "must be a bundle id such as com.example.game")
        }
        sharedSecret = env.optional("IAP_SHARED_SECRET")
        stores = try PluginStores.configured(env)
        let environmentName = env.string("IAP_APPSTORE_ENVIRONMENT", default: defaultAppStoreEnvironment.rawValue)
        guard let parsed = AppStoreEnvironment(rawValue: environmentName), parsed == .production || parsed == .sandbox
        else {
            throw SettingError(
                variable: "IAP_APPSTORE_ENVIRONMENT", problem: "must be Production or Sandbox, got '\(environmentName)'"
            )
        }
        appStoreEnvironment = parsed
        if let raw = env.optional("IAP_APP_APPLE_ID") {
            guard let id = Int64(raw), id > 0 else {
                throw SettingError(
                    variable: "IAP_APP_APPLE_ID", problem: "must be the app's numeric Apple id, got '\(raw)'")
            }
            appAppleID = id
        }
        let credentials = ["IAP_APPSTORE_PRIVATE_KEY", "IAP_APPSTORE_KEY_ID", "IAP_APPSTORE_ISSUER_ID"]
        let given = credentials.filter { env.optional($0) != nil }
        if !given.isEmpty {
            guard given.count == credentials.count, let keyPath = env.optional("IAP_APPSTORE_PRIVATE_KEY"),
                let keyID = env.optional("IAP_APPSTORE_KEY_ID"), let issuerID = env.optional("IAP_APPSTORE_ISSUER_ID")
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
                serverAPIKey = try AppStoreServerAPIKey(
                    privateKeyPEM: pem, keyID: keyID, issuerID: issuerID, bundleID: bundleID)
            } catch {
                throw SettingError(variable: "IAP_APPSTORE_PRIVATE_KEY", problem: "\(error)")
            }
            if let url = try env.httpURL("IAP_APPSTORE_API_URL") { serverAPI.productionBaseURL = url }
            if let url = try env.httpURL("IAP_APPSTORE_API_SANDBOX_URL") { serverAPI.sandboxBaseURL = url }
        }
        appReceipt = try Self.appReceipt(environment: env, bundleID: bundleID, defaultRoot: defaultReceiptRoot)
        if let raw = env.optional("IAP_RECEIPT_VERIFICATION") {
            guard let mode = ReceiptVerificationMode(rawValue: raw) else {
                throw SettingError(
                    variable: "IAP_RECEIPT_VERIFICATION",
                    problem: "must be local, apple or local-then-apple, got '\(raw)'")
            }
            receiptVerification = mode
        }
        rootCertificates = try AppleRootSetting.roots(env) ?? defaultRoot.map { [$0] }
    }

    /// PEM files hold base64 between BEGIN/END lines; anything else is taken as DER.
    static func der(fromPEMOrDER data: Data) -> Data { AppleRootSetting.der(fromPEMOrDER: data) }

    /// StoreKit 2 verification, or nil (with the reason) when it cannot be configured.
    func signedDataVerifier() throws -> SignedDataVerifier? {
        if appStoreEnvironment == .production, appAppleID == nil { return nil }
        do {
            return try SignedDataVerifier(
                rootCertificates: rootCertificates ?? [SignedDataVerifier.appleRootCAG3], bundleID: bundleID,
                appAppleID: appAppleID, environment: appStoreEnvironment)
        } catch {
            throw SettingError(variable: "IAP_APPLE_ROOT_CA", problem: "\(error)")
        }
    }

    var legacyConfiguration: VerifyReceiptVerifier.Configuration {
        .init(bundleID: bundleID, productionURL: productionURL, sandboxURL: sandboxURL, sharedSecret: sharedSecret)
    }

    /// Apple as these settings configure it, for the stages that call it.
    func apple(logger: Logger) throws -> AppleSetup {
        let signedData = try signedDataVerifier()
        if signedData == nil {
            logger.notice("IAP_APP_APPLE_ID is not set: StoreKit 2 signed data is rejected in Production")
        }
        var apple = AppleSetup(verifyReceipt: legacyConfiguration, signedData: signedData)
        apple.receiptVerification = receiptVerification
        apple.appReceipt = appReceipt
        apple.serverAPIKey = serverAPIKey
        apple.serverAPI = serverAPI
        return apple
    }
}
