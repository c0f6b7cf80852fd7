import AppStore
import Foundation
import HTTPClient
import Logging
import Pipeline
import PipelineCore

/// How validators verify: `IAP_VERIFY_URL`, `IAP_VERIFY_SANDBOX_URL`, `IAP_BUNDLE_ID`,
/// `IAP_SHARED_SECRET` for legacy receipts; `IAP_APPSTORE_ENVIRONMENT`, `IAP_APP_APPLE_ID`
/// and `IAP_APPLE_ROOT_CA` for StoreKit 2 signed data.
struct VerifierSettings: Sendable {
    var productionURL: String
    var sandboxURL: String
    var bundleID: String
    var sharedSecret: String?
    var appStoreEnvironment: AppStoreEnvironment
    var appAppleID: Int64?
    /// DER roots to trust for signed data; nil means Apple Root CA - G3.
    var rootCertificates: [[UInt8]]?

    /// - Parameter defaultURLs: used when the variables are unset; Apple's endpoints
    ///   unless `iap up` embeds the stub store.
    init(
        environment env: EnvironmentReader, defaultURLs: (production: String, sandbox: String)? = nil,
        defaultAppStoreEnvironment: AppStoreEnvironment = .production, defaultRoot: [UInt8]? = nil
    ) throws(SettingError) {
        let defaults = defaultURLs ?? (
            VerifyReceiptVerifier.Configuration.appleProductionURL, VerifyReceiptVerifier.Configuration.appleSandboxURL
        )
        productionURL = try env.httpURL("IAP_VERIFY_URL", default: defaults.production)!
        sandboxURL = try env.httpURL("IAP_VERIFY_SANDBOX_URL", default: defaults.sandbox)!
        bundleID = env.string("IAP_BUNDLE_ID", default: "com.example.game")
        guard bundleID.count <= 255, bundleID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_".contains($0)) })
        else {
            throw SettingError(variable: "IAP_BUNDLE_ID", problem: "must be a bundle id such as com.example.game")
        }
        sharedSecret = env.optional("IAP_SHARED_SECRET")
        let environmentName = env.string("IAP_APPSTORE_ENVIRONMENT", default: defaultAppStoreEnvironment.rawValue)
        guard let parsed = AppStoreEnvironment(rawValue: environmentName), parsed == .production || parsed == .sandbox else {
            throw SettingError(variable: "IAP_APPSTORE_ENVIRONMENT", problem: "must be Production or Sandbox, got '\(environmentName)'")
        }
        appStoreEnvironment = parsed
        if let raw = env.optional("IAP_APP_APPLE_ID") {
            guard let id = Int64(raw), id > 0 else {
                throw SettingError(variable: "IAP_APP_APPLE_ID", problem: "must be the app's numeric Apple id, got '\(raw)'")
            }
            appAppleID = id
        }
        if let path = env.optional("IAP_APPLE_ROOT_CA") {
            guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
                throw SettingError(variable: "IAP_APPLE_ROOT_CA", problem: "cannot read \(path)")
            }
            rootCertificates = [Array(Self.der(fromPEMOrDER: data))]
        } else {
            rootCertificates = defaultRoot.map { [$0] }
        }
    }

    /// PEM files hold base64 between BEGIN/END lines; anything else is taken as DER.
    private static func der(fromPEMOrDER data: Data) -> Data {
        guard let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN") else { return data }
        let base64 = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Data(base64Encoded: base64) ?? data
    }

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

    /// The verifier and the HTTP client it owns.
    func makeVerifier(logger: Logger) throws -> (any ReceiptVerifier, CurlHTTPClient) {
        let signedData = try signedDataVerifier()
        if signedData == nil {
            logger.notice("IAP_APP_APPLE_ID is not set: StoreKit 2 signed data is rejected in Production")
        }
        let client = try CurlHTTPClient(logger: logger)
        let legacy = try VerifyReceiptVerifier(configuration: legacyConfiguration, client: client, logger: logger)
        return (Verifiers.make(legacy: legacy, signedData: signedData), client)
    }
}
