import Crypto
import Foundation

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
        HMAC<Insecure.SHA1>.authenticationCode(for: Array(Self.signedText(parameters).utf8), using: key)
            .map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `signature` (hex, either case) is this key's over `parameters`, compared in
    /// constant time.
    public func isValid(_ signature: String, of parameters: [String: String]) -> Bool {
        guard let bytes = Self.hexBytes(signature), bytes.count == Insecure.SHA1.byteCount else { return false }
        return HMAC<Insecure.SHA1>.isValidAuthenticationCode(
            bytes, authenticating: Array(Self.signedText(parameters).utf8), using: key)
    }

    static func hexBytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}
