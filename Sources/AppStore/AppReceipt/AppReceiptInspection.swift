import Foundation
import X509

/// Everything `iap receipt inspect` shows: what a receipt says and which checks hold.
///
/// Unlike ``AppReceiptVerifier/verify(der:)``, which stops at the first failure, inspection runs
/// every check it can, so an operator sees the content of a receipt whose chain has expired.
public struct AppReceiptInspection: Codable, Hashable, Sendable {
    /// One check's result.
    public struct Check: Codable, Hashable, Sendable {
        /// Whether it holds.
        public var ok: Bool
        /// The ``AppReceiptError/Reason`` raw value when it does not.
        public var reason: String?
        /// Why not, or what was checked.
        public var detail: String?

        static let passed = Check(ok: true)
        static func failed(_ error: AppReceiptError) -> Check {
            Check(ok: false, reason: error.reason.rawValue, detail: error.message)
        }
    }

    /// What the receipt says, when its content could be read (even if the signature fails).
    public var receipt: AppReceipt?
    /// The container's certificates, subjects as text, signer first.
    public var certificates: [String]
    /// The signature over the content.
    public var signature: Check
    /// The chain (or, for an Xcode receipt, the trusted Xcode certificate); nil when not reached.
    public var chain: Check?
    /// The moment the chain was checked at.
    public var validatedAt: Date?
    /// The bundle id; nil when none was asked for.
    public var bundle: Check?
    /// Whether every check holds: what ``AppReceiptVerifier/verify(der:)`` would accept.
    public var valid: Bool

    enum CodingKeys: String, CodingKey {
        case receipt, certificates, signature, chain, bundle, valid
        case validatedAt = "validated_at"
    }
}
