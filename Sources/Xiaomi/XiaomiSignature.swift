import Crypto
import Foundation
import PipelineCore

/// Xiaomi's `signature`: HMAC-SHA1 keyed with the app's `AppSecret`, in lowercase hex, over
/// `name=value` of every parameter but `signature` that has a value, sorted by name, joined by
/// `&`, each value as it is (not URL-encoded). Xiaomi signs its notices and its answers to
/// order queries so, and checks our queries the same way.
public struct XiaomiSignature: Sendable {
    private let key: SymmetricKey

    public init(secret: String) {
        key = SymmetricKey(data: Array(secret.utf8))
    }

    /// The text Xiaomi signs for `parameters`.
    public static func signedText(_ parameters: [String: String]) -> String {
        parameters.filter { $0.key != "signature" && !$0.value.isEmpty }
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { "\($0.key)=\($0.value)" }.joined(separator: "&")
    }

    /// The signature of `parameters`.
    public func sign(_ parameters: [String: String]) -> String {
        Hex.string(HMAC<Insecure.SHA1>.authenticationCode(for: Array(Self.signedText(parameters).utf8), using: key))
    }

    /// Whether `signature` (hex, either case) is this key's over `parameters`, compared in
    /// constant time.
    public func isValid(_ signature: String, of parameters: [String: String]) -> Bool {
        guard let bytes = Hex.bytes(signature), bytes.count == Insecure.SHA1.byteCount else { return false }
        return HMAC<Insecure.SHA1>.isValidAuthenticationCode(
            bytes, authenticating: Array(Self.signedText(parameters).utf8), using: key)
    }
}
