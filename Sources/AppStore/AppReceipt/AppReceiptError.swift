/// Why an app receipt was not accepted, or could not be read.
///
/// Every reason is permanent for these bytes. ``Reason/malformed`` and ``Reason/unsupported``
/// mean this verifier could not decide; the others mean it decided the receipt is not good.
public struct AppReceiptError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of check failed, in the order the checks run.
    public enum Reason: String, Hashable, Sendable, CaseIterable {
        /// Not base64, not a PKCS #7 SignedData container, or its content not a receipt's
        /// attribute SET (or a known field of the wrong type).
        case malformed = "receipt_malformed"
        /// A well-formed container signed in a way this verifier does not implement (a digest
        /// other than SHA-1 or SHA-256, a key that is not RSA or EC, several signers).
        case unsupported = "receipt_unsupported"
        /// The signature does not verify with the signing certificate's key over the content.
        case signatureInvalid = "receipt_signature_invalid"
        /// The signing certificate does not chain through an intermediate with Apple's WWDR OID
        /// to a configured root, valid at the receipt's creation date (or the pinned time).
        case chainInvalid = "receipt_chain_invalid"
        /// An Xcode (StoreKit testing) receipt, which Apple never signs, and no Xcode
        /// certificate was configured to trust.
        case xcodeNotAllowed = "receipt_xcode_not_allowed"
        /// Genuine, but for another app. Spelled as the `verifyReceipt` path spells it, so
        /// both modes group alike in the dead-letter and status views.
        case bundleMismatch = "bundle_mismatch"
        /// Genuine, but another app's of this pipeline (`IAP_APPS`): the message names it.
        case appMismatch = "app_mismatch"
    }

    /// What kind of check failed.
    public let reason: Reason
    /// Details for logs and the CLI; never the receipt itself.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - reason: What kind of check failed.
    ///   - message: Details for logs.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// Whether the receipt itself was judged (signature, chain, bundle, environment), rather than
    /// found unreadable: `local-then-apple` asks Apple only when this is false.
    public var isDecided: Bool { reason != .malformed && reason != .unsupported }

    /// The reason a rejected submission carries: the code, and for the reasons with useful
    /// detail (malformed, unsupported, chain) the detail after a colon.
    public var rejectionReason: String {
        switch reason {
        case .malformed, .unsupported, .chainInvalid, .appMismatch: "\(reason.rawValue): \(message)"
        case .signatureInvalid, .xcodeNotAllowed, .bundleMismatch: reason.rawValue
        }
    }

    public var description: String { "\(reason.rawValue): \(message)" }

    static func malformed(_ message: String) -> Self { .init(.malformed, message) }
    static func unsupported(_ message: String) -> Self { .init(.unsupported, message) }
    static func signatureInvalid(_ message: String) -> Self { .init(.signatureInvalid, message) }
    static func chainInvalid(_ message: String) -> Self { .init(.chainInvalid, message) }
}
