/// An App Store Server API setup that cannot work: thrown at start, naming what is wrong.
///
/// ``setting`` says which input is at fault, so the settings layer can name its own variable
/// (`privateKey` → `IAP_APPSTORE_KEY`, `keyID` → `IAP_APPSTORE_KEY_ID`, and so on).
///
/// ```swift
/// do {
///     key = try AppStoreServerAPIKey(privateKeyPEM: pem, keyID: keyID, issuerID: issuerID, bundleID: bundleID)
/// } catch {
///     throw SettingError(variable: variableName(error.setting), problem: error.message)
/// }
/// ```
public struct AppStoreServerAPIConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input at fault.
    public enum Setting: String, Hashable, Sendable, CaseIterable {
        /// The `.p8` private key from App Store Connect.
        case privateKey
        /// The key's id (the JWT `kid`).
        case keyID
        /// The issuer id of the team's keys (the JWT `iss`).
        case issuerID
        /// The app's bundle id (the JWT `bid`).
        case bundleID
        /// ``AppStoreServerAPIClient/Configuration/productionBaseURL``.
        case productionBaseURL
        /// ``AppStoreServerAPIClient/Configuration/sandboxBaseURL``.
        case sandboxBaseURL
        /// ``AppStoreServerAPIClient/Configuration/timeout``.
        case timeout
        /// ``AppStoreServerAPIClient/Configuration/maxRetries``.
        case maxRetries
        /// ``AppStoreServerAPIClient/Configuration/maxRetryAfter`` or
        /// ``AppStoreServerAPIClient/Configuration/defaultRetryAfter``.
        case retryAfter
        /// ``AppStoreServerAPIClient/Configuration/maxPages``.
        case maxPages
        /// The lifetime of the JWTs (at most 60 minutes).
        case tokenLifetime
    }

    /// The input at fault.
    public var setting: Setting
    /// What is wrong with it, for people; never contains the private key.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - setting: The input at fault.
    ///   - message: What is wrong with it.
    public init(_ setting: Setting, _ message: String) {
        self.setting = setting
        self.message = message
    }

    /// `setting: message`, such as `privateKey: not a PEM ...`.
    public var description: String { "\(setting.rawValue): \(message)" }
}
