import Crypto
import Foundation
import PipelineCore

/// The key that signs webhooks, written as Standard Webhooks writes it: `whsec_` followed by
/// the base64 of 24 to 64 random bytes.
///
/// The same text goes into the notifier's `IAP_WEBHOOK_SECRET` and into the receiver's
/// Standard Webhooks library, which strips the prefix and decodes the rest the same way.
///
/// ```swift
/// let secret = try WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
/// let fresh = WebhookSecret.generate()
/// print("IAP_WEBHOOK_SECRET=\(fresh.encoded)")
/// ```
///
/// `description` never shows the key, so a secret that ends up in a log line stays secret.
///
/// Spec: <https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md>
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
    /// The prefix Standard Webhooks puts before the base64 of the key.
    public static let prefix = "whsec_"
    /// The key sizes Standard Webhooks allows, in bytes.
    public static let keySizes = 24...64

    /// The key's bytes. (`SymmetricKey` is not `Sendable` in this swift-crypto, so the
    /// secret keeps the bytes and makes the key on use.)
    private let keyBytes: [UInt8]

    /// The HMAC key.
    public var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    /// Compares in constant time.
    public static func == (lhs: WebhookSecret, rhs: WebhookSecret) -> Bool {
        lhs.key == rhs.key
    }

    /// Parses a secret as written in the environment.
    /// - Parameters:
    ///   - encoded: `whsec_` and the base64 (standard alphabet, padded) of the key.
    ///   - variable: The setting it came from, named in the error.
    /// - Throws: ``SettingError`` naming `variable` when the prefix is missing, the rest is not
    ///   base64, or the key is not 24 to 64 bytes. The message never repeats the value.
    public init(_ encoded: String, variable: String = "IAP_WEBHOOK_SECRET") throws(SettingError) {
        guard encoded.hasPrefix(Self.prefix) else {
            throw SettingError(
                variable: variable, problem: "must start with '\(Self.prefix)' (Standard Webhooks format)")
        }
        guard let key = Data(base64Encoded: String(encoded.dropFirst(Self.prefix.count))) else {
            throw SettingError(variable: variable, problem: "must be '\(Self.prefix)' followed by base64")
        }
        guard Self.keySizes.contains(key.count) else {
            throw SettingError(
                variable: variable,
                problem: "must hold a key of \(Self.keySizes.lowerBound) to \(Self.keySizes.upperBound) bytes, "
                    + "got \(key.count)")
        }
        self.keyBytes = Array(key)
    }

    /// A secret made of the given key bytes.
    /// - Parameter keyBytes: 24 to 64 bytes.
    public init(keyBytes: some ContiguousBytes) throws(SettingError) {
        let bytes = keyBytes.withUnsafeBytes { Array($0) }
        guard Self.keySizes.contains(bytes.count) else {
            throw SettingError(
                variable: "IAP_WEBHOOK_SECRET",
                problem: "must hold a key of \(Self.keySizes.lowerBound) to \(Self.keySizes.upperBound) bytes")
        }
        self.keyBytes = bytes
    }

    private init(key: SymmetricKey) {
        self.keyBytes = key.withUnsafeBytes { Array($0) }
    }

    /// A fresh random secret, for local defaults (`iap up`) and tests.
    /// - Parameter byteCount: The key size: 32 bytes unless given; clamped to 24...64.
    public static func generate(byteCount: Int = 32) -> WebhookSecret {
        let bytes = min(max(byteCount, keySizes.lowerBound), keySizes.upperBound)
        return WebhookSecret(key: SymmetricKey(size: SymmetricKeySize(bitCount: bytes * 8)))
    }

    /// The secret as Standard Webhooks writes it, `whsec_...`: what to put in
    /// `IAP_WEBHOOK_SECRET` and give the receiver.
    public var encoded: String {
        Self.prefix + Data(keyBytes).base64EncodedString()
    }

    /// `whsec_…` without the key.
    public var description: String { Self.prefix + "…(\(keyBytes.count) bytes)" }
}
