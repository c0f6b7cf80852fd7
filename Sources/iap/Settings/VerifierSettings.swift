import AppStore
import Foundation
import GooglePlay
import Pipeline
import PipelineCore
import StorePlugins

/// What the stages that call the stores read: Apple's settings (``AppleSetup``), the plug-in
/// stores' (``PluginStores``), and `IAP_VERIFY_CA_FILE`.
struct VerifierSettings: Sendable {
    var apple: AppleSetup
    /// `IAP_VERIFY_CA_FILE`: CA certificates (PEM) trusted for the stores' endpoints instead
    /// of the system's, for a private proxy or endpoint in front of them.
    var caFile: String?
    /// The plug-in stores the environment configures, Google Play among them.
    var stores: StoreRegistry

    /// Google Play's service account and API (`IAP_GOOGLE_SERVICE_ACCOUNT`, ...), read by its
    /// plug-in; nil leaves its purchases rejected.
    var googlePlay: GooglePlaySetup? { (stores.configured[GooglePlayStore.id] as? GooglePlayStore)?.setup }

    /// - Parameter apple: Apple's defaults: its own endpoints and roots unless `iap up` embeds
    ///   the stub store.
    init(environment env: EnvironmentReader, apple defaults: AppleSetup.Defaults = .init()) throws(SettingError) {
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
        apple = try AppleSetup(environment: env, defaults: defaults)
        stores = try PluginStores.configured(env)
    }

    /// PEM files hold base64 between BEGIN/END lines; anything else is taken as DER.
    static func der(fromPEMOrDER data: Data) -> Data { AppleRootSetting.der(fromPEMOrDER: data) }
}
