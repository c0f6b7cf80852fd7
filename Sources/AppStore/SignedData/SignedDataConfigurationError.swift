/// A ``SignedDataVerifier`` configuration that cannot work; thrown from `init`, so startup stops.
public struct SignedDataConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the configuration.
    public enum Reason: String, Hashable, Sendable {
        /// No root certificates were given.
        case noRootCertificates = "no_root_certificates"
        /// A root certificate is not a DER X.509 certificate.
        case invalidRootCertificate = "invalid_root_certificate"
        /// The bundle id is empty.
        case emptyBundleID = "empty_bundle_id"
        /// Production needs the app's Apple id, to check notifications are for this app.
        case missingAppAppleID = "missing_app_apple_id"
        /// Xcode and local-testing data are not signed by Apple and cannot be verified.
        case unsupportedEnvironment = "unsupported_environment"
    }

    /// What is wrong.
    public let reason: Reason
    /// Details for the operator.
    public let message: String

    init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
