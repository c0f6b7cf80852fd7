import CryptoExtras
import Foundation
import PipelineCore

/// A Google Cloud service account, as the JSON key file Google hands out: whose it is, the
/// RSA key its OAuth assertions are signed with, and where they are exchanged for tokens.
///
/// The key never appears in a description, a log line or an error: errors name
/// `IAP_GOOGLE_SERVICE_ACCOUNT` and what is wrong, not what the file holds.
///
/// ```swift
/// let account = try GoogleServiceAccount(json: Data(contentsOf: path))
/// print(account.clientEmail)   // iap-validator@my-project.iam.gserviceaccount.com
/// ```
public struct GoogleServiceAccount: Sendable, CustomStringConvertible {
    /// The setting that names the key file.
    public static let setting = "IAP_GOOGLE_SERVICE_ACCOUNT"

    /// The account's address: the assertion's issuer.
    public let clientEmail: String
    /// The key's id, sent as the assertion's `kid`.
    public let privateKeyID: String?
    /// Where assertions are exchanged for access tokens.
    public let tokenURI: String
    let privateKey: _RSA.Signing.PrivateKey

    /// Reads a key file.
    /// - Throws: ``SettingError`` naming ``setting`` and the problem (not JSON, not a service
    ///   account, a field missing, a key that is not RSA PEM, a token URI that is not http(s)).
    public init(json: Data) throws(SettingError) {
        struct File: Decodable {
            var type: String?
            var client_email: String?
            var private_key: String?
            var private_key_id: String?
            var token_uri: String?
        }
        func refuse(_ problem: String) -> SettingError { SettingError(variable: Self.setting, problem: problem) }
        guard let file = try? JSONDecoder().decode(File.self, from: json) else {
            throw refuse("the service-account key file is not a JSON object (download it again from Google Cloud)")
        }
        guard file.type == "service_account" else {
            throw refuse("the key file's type is '\(file.type?.prefix(32) ?? "missing")', not service_account")
        }
        guard let email = file.client_email, email.contains("@"), email.count <= 320 else {
            throw refuse("the key file has no client_email")
        }
        guard let pem = file.private_key, !pem.isEmpty else { throw refuse("the key file has no private_key") }
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw refuse("the key file's private_key is not an RSA private key in PEM")
        }
        guard key.keySizeInBits >= 2048 else {
            throw refuse("the key file's RSA key has \(key.keySizeInBits) bits; Google issues 2048")
        }
        let tokenURI = file.token_uri ?? "https://oauth2.googleapis.com/token"
        guard let url = URL(string: tokenURI), ["https", "http"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil
        else { throw refuse("the key file's token_uri is not an http(s) URL") }
        self.clientEmail = email
        self.privateKeyID = file.private_key_id
        self.tokenURI = tokenURI
        self.privateKey = key
    }

    /// Reads the key file at `path`.
    public init(path: String) throws(SettingError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingError(variable: Self.setting, problem: "cannot read the key file at \(path)")
        }
        try self.init(json: data)
    }

    /// The account, never its key.
    public var description: String { "service account \(clientEmail)" }
}
