/// Why a piece of signed data from the App Store was not accepted.
///
/// Every reason is permanent: the same bytes will never verify, so the submission is rejected
/// rather than retried. ``StoreKitVerifier`` reports them as `jws_<reason>`, e.g. `jws_invalid_chain`.
public struct VerificationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of check failed, in the order the checks run.
    public enum Reason: String, Hashable, Sendable, CaseIterable {
        /// Not a compact JWS Apple could have made: not three base64url parts, a header that is not
        /// JSON or not `alg: ES256`, an `x5c` that is missing, not three certificates, not base64 or
        /// too large, or a payload that is not the expected JSON object.
        case invalidFormat = "invalid_format"
        /// The `x5c` certificates are not DER certificates, or do not chain from a leaf carrying
        /// Apple's receipt-signing OID through an intermediate carrying Apple's WWDR OID to a
        /// configured root, valid at the payload's `signedDate`.
        case invalidChain = "invalid_chain"
        /// The ES256 signature does not verify with the leaf certificate's key.
        case invalidSignature = "invalid_signature"
        /// Genuine, but for another app: the bundle id (or, in production, the app's Apple id) differs.
        case wrongApp = "wrong_app"
        /// Genuine and for this app, but from the other environment (sandbox vs production).
        case wrongEnvironment = "wrong_environment"
    }

    /// What kind of check failed.
    public let reason: Reason
    /// Details for logs; never contains the signed data itself.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - reason: What kind of check failed.
    ///   - message: Details for logs.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }

    static func invalidFormat(_ message: String) -> Self { .init(.invalidFormat, message) }
    static func invalidChain(_ message: String) -> Self { .init(.invalidChain, message) }
    static func invalidSignature(_ message: String) -> Self { .init(.invalidSignature, message) }
    static func wrongApp(_ message: String) -> Self { .init(.wrongApp, message) }
    static func wrongEnvironment(_ message: String) -> Self { .init(.wrongEnvironment, message) }
}
