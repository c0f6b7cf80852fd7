import Crypto
import Foundation

/// The credentials of App Store Server API requests: an In-App Purchase key from App Store
/// Connect and whom it belongs to
/// ([Creating API keys](https://developer.apple.com/documentation/appstoreserverapi/creating-api-keys-to-authorize-api-requests)).
///
/// Made once at start; a key that cannot sign is a configuration error then, not a failure of
/// every request later.
///
/// ```swift
/// let key = try AppStoreServerAPIKey(
///     privateKeyPEM: String(decoding: try Data(contentsOf: p8File), as: UTF8.self),
///     keyID: "2X9R4HXF34", issuerID: "57246542-96fe-1a63-e053-0824d011072a", bundleID: "com.example.game")
/// ```
///
/// The private key never appears in ``description``.
public struct AppStoreServerAPIKey: Sendable, CustomStringConvertible {
    /// The P-256 private key the JWTs are signed with.
    ///
    /// swift-crypto's keys are not `Sendable`, so the key is kept as its 32-byte scalar and
    /// rebuilt when asked for (once per token, every few minutes).
    public var privateKey: P256.Signing.PrivateKey {
        do {
            return try P256.Signing.PrivateKey(rawRepresentation: rawPrivateKey)
        } catch {
            // The bytes came from a valid key in init; they cannot stop being one.
            preconditionFailure("a P-256 scalar that parsed once no longer parses: \(error)")
        }
    }
    private let rawPrivateKey: Data
    /// The key's id in App Store Connect: the JWT header's `kid`.
    public let keyID: String
    /// The issuer id from App Store Connect's Keys page: the JWT's `iss`.
    public let issuerID: String
    /// The app's bundle id: the JWT's `bid`.
    public let bundleID: String

    /// The public half, which App Store Connect (or the stub store) verifies tokens with.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    /// Creates credentials from the contents of the `.p8` file App Store Connect hands out.
    /// - Parameters:
    ///   - privateKeyPEM: The PEM text, `-----BEGIN PRIVATE KEY-----` (PKCS#8) or
    ///     `-----BEGIN EC PRIVATE KEY-----` (SEC 1); a value whose line breaks were written as
    ///     `\n` (as in an environment variable) is accepted too.
    ///   - keyID: The key's id.
    ///   - issuerID: The issuer id.
    ///   - bundleID: The app's bundle id.
    /// - Throws: ``AppStoreServerAPIConfigurationError`` naming
    ///   ``AppStoreServerAPIConfigurationError/Setting/privateKey`` if the text is not a P-256
    ///   private key, or the id that is empty.
    public init(
        privateKeyPEM: String, keyID: String, issuerID: String, bundleID: String
    ) throws(AppStoreServerAPIConfigurationError) {
        try self.init(privateKey: Self.parse(privateKeyPEM), keyID: keyID, issuerID: issuerID, bundleID: bundleID)
    }

    /// Creates credentials from a key already in memory.
    /// - Parameters:
    ///   - privateKey: The P-256 private key.
    ///   - keyID: The key's id.
    ///   - issuerID: The issuer id.
    ///   - bundleID: The app's bundle id.
    /// - Throws: ``AppStoreServerAPIConfigurationError`` naming the id that is empty or has spaces.
    public init(
        privateKey: P256.Signing.PrivateKey, keyID: String, issuerID: String, bundleID: String
    ) throws(AppStoreServerAPIConfigurationError) {
        for (setting, value) in [
            (AppStoreServerAPIConfigurationError.Setting.keyID, keyID), (.issuerID, issuerID),
            (.bundleID, bundleID),
        ] {
            guard !value.isEmpty else { throw AppStoreServerAPIConfigurationError(setting, "is empty") }
            guard !value.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw AppStoreServerAPIConfigurationError(setting, "contains white space: '\(value)'")
            }
        }
        self.rawPrivateKey = privateKey.rawRepresentation
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
    }

    /// The ids, and the key only as `P-256`.
    public var description: String {
        "AppStoreServerAPIKey(keyID: \(keyID), issuerID: \(issuerID), bundleID: \(bundleID), key: P-256)"
    }

    private static func parse(_ text: String) throws(AppStoreServerAPIConfigurationError) -> P256.Signing.PrivateKey {
        var pem = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !pem.contains("\n"), pem.contains("\\n") {
            pem = pem.replacingOccurrences(of: "\\n", with: "\n")
        }
        guard !pem.isEmpty else {
            throw AppStoreServerAPIConfigurationError(.privateKey, "is empty; expected the contents of the .p8 file")
        }
        guard pem.hasPrefix("-----BEGIN ") else {
            throw AppStoreServerAPIConfigurationError(
                .privateKey, "is not PEM; expected the contents of the .p8 file (-----BEGIN PRIVATE KEY-----)")
        }
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            // The error says only what kind of failure it was; the key text stays out of it.
            throw AppStoreServerAPIConfigurationError(
                .privateKey, "is not a P-256 (ES256) private key in PKCS#8 or SEC 1 PEM (\(error))")
        }
    }
}
