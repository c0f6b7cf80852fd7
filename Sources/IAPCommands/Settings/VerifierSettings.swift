import AppStore
import Foundation
import Pipeline
import PipelineCore
import StorePlugins

/// What the stages that call the stores read: every registered store's settings, each read
/// by its plug-in (``PluginStores``), and `IAP_VERIFY_CA_FILE`.
package struct VerifierSettings: Sendable {
    /// `IAP_VERIFY_CA_FILE`: CA certificates (PEM) trusted for the stores' endpoints instead
    /// of the system's, for a private proxy or endpoint in front of them.
    package var caFile: String?
    /// The stores the environment configures, Apple and Google Play among them.
    package var stores: StoreRegistry

    package init(environment env: EnvironmentReader) throws(SettingError) {
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
        stores = try PluginStores.configured(env)
    }

    /// PEM files hold base64 between BEGIN/END lines; anything else is taken as DER.
    package static func der(fromPEMOrDER data: Data) -> Data { AppleRootSetting.der(fromPEMOrDER: data) }
}
