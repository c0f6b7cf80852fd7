import Foundation
import PipelineCore

extension AppleSetup {
    /// The local receipt checks from `IAP_RECEIPT_ROOT_CA` (a PEM or DER root; Apple Inc. Root CA
    /// when unset) and `IAP_RECEIPT_XCODE_CERT` (the
    /// StoreKit testing certificate an Xcode project exports; unset refuses `Xcode` receipts).
    static func appReceipt(
        environment env: EnvironmentReader, bundleID: String
    ) throws(SettingError) -> AppReceiptVerifier.Configuration {
        let root = try certificate(env, "IAP_RECEIPT_ROOT_CA") ?? AppReceiptVerifier.appleIncRootCA
        let xcode = try certificate(env, "IAP_RECEIPT_XCODE_CERT")
        var configuration = AppReceiptVerifier.Configuration(rootCertificates: [root], bundleID: bundleID)
        // Checked one at a time, so the error names the file at fault.
        for (variable, xcodeCertificates) in [
            ("IAP_RECEIPT_ROOT_CA", []), ("IAP_RECEIPT_XCODE_CERT", xcode.map { [$0] } ?? []),
        ] {
            configuration.xcodeCertificates = xcodeCertificates
            do {
                _ = try AppReceiptVerifier(configuration: configuration)
            } catch {
                throw SettingError(variable: variable, problem: "\(error)")
            }
        }
        return configuration
    }

    /// The certificate file `variable` names, as DER; nil when unset.
    private static func certificate(_ env: EnvironmentReader, _ variable: String) throws(SettingError) -> [UInt8]? {
        guard let path = env.optional(variable) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
            throw SettingError(variable: variable, problem: "cannot read \(path)")
        }
        return Array(AppleRootSetting.der(fromPEMOrDER: data))
    }
}
