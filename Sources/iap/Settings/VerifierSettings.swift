import AppStore
import HTTPClient
import Logging
import PipelineCore

/// How validators reach the verify endpoint: `IAP_VERIFY_URL`, `IAP_VERIFY_SANDBOX_URL`,
/// `IAP_BUNDLE_ID`, `IAP_SHARED_SECRET`.
struct VerifierSettings: Sendable {
    var productionURL: String
    var sandboxURL: String
    var bundleID: String
    var sharedSecret: String?

    /// - Parameter defaultURLs: used when the variables are unset; Apple's endpoints
    ///   unless `iap up` embeds the stub store.
    init(environment env: EnvironmentReader, defaultURLs: (production: String, sandbox: String)? = nil) throws(SettingError) {
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
    }

    /// The verifier and the HTTP client it owns.
    func makeVerifier(logger: Logger) throws -> (any ReceiptVerifier, CurlHTTPClient) {
        let client = try CurlHTTPClient(logger: logger)
        let verifier = try VerifyReceiptVerifier(
            configuration: .init(
                bundleID: bundleID, productionURL: productionURL, sandboxURL: sandboxURL, sharedSecret: sharedSecret),
            client: client, logger: logger)
        return (verifier, client)
    }
}
