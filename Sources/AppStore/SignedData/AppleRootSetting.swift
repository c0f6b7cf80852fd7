import Foundation
import PipelineCore

/// `IAP_APPLE_ROOT_CA`: the root certificate (PEM or DER) that App Store signed data must
/// chain to instead of Apple Root CA - G3, such as the stub store's. Read by the validator
/// for StoreKit 2 data and by the intake for Apple's notifications, so that both trust the same.
public enum AppleRootSetting {
    public static let variable = "IAP_APPLE_ROOT_CA"

    /// The roots the setting names, DER; nil when it is unset.
    /// - Throws: ``SettingError`` naming the variable when the file cannot be read.
    public static func roots(_ env: EnvironmentReader) throws(SettingError) -> [[UInt8]]? {
        guard let path = env.optional(variable) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
            throw SettingError(variable: variable, problem: "cannot read \(path)")
        }
        return [Array(der(fromPEMOrDER: data))]
    }

    /// PEM files hold base64 between BEGIN/END lines; anything else is taken as DER.
    public static func der(fromPEMOrDER data: Data) -> Data {
        guard let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN") else { return data }
        let base64 = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Data(base64Encoded: base64) ?? data
    }
}
