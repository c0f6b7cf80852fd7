import AppStore
import Crypto
import Foundation
import StubStore
import Testing

@Suite struct AppStoreServerAPIKeyTests {
    /// A PKCS#8 P-256 key as App Store Connect's `.p8` files hold one.
    static let p8 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQggtvQlayTyHKtR2IW
        98DqxkgXMuSU1gJD5w69kfP9awahRANCAAS8rB1trxlGNC1O+s7xWPtpE6n0a7VN
        cvzEKBVMqdzmfn8+hX2F9Xloi3F2HPcYuAb6Rsh8bpibhRXrMw77luRK
        -----END PRIVATE KEY-----
        """

    func key(_ pem: String, keyID: String = "K", issuerID: String = "I", bundleID: String = "com.example.game")
        throws(AppStoreServerAPIConfigurationError) -> AppStoreServerAPIKey
    {
        try AppStoreServerAPIKey(privateKeyPEM: pem, keyID: keyID, issuerID: issuerID, bundleID: bundleID)
    }

    func setting(_ body: () throws -> Void) -> AppStoreServerAPIConfigurationError.Setting? {
        do {
            try body()
            return nil
        } catch {
            return (error as? AppStoreServerAPIConfigurationError)?.setting
        }
    }

    @Test func p8_isRead_andSignsVerifiably() throws {
        let key = try key(Self.p8)
        let signature = try key.privateKey.signature(for: Data("x".utf8))
        #expect(key.publicKey.isValidSignature(signature, for: Data("x".utf8)))
        // The development key of the stub is the same key
        #expect(
            StubServerAPIConfiguration.development.publicKey?.rawRepresentation == key.publicKey.rawRepresentation)
    }

    @Test func p8_withEscapedNewlines_asInAnEnvironmentVariable_isRead() throws {
        let oneLine = Self.p8.replacingOccurrences(of: "\n", with: "\\n")
        #expect(try key(oneLine).publicKey.rawRepresentation == key(Self.p8).publicKey.rawRepresentation)
    }

    @Test func sec1PEM_ofTheSameKey_isTheSameKey() throws {
        // openssl ec -in p8.pem: the same key as "EC PRIVATE KEY" (SEC 1)
        let sec1 = """
            -----BEGIN EC PRIVATE KEY-----
            MHcCAQEEIILb0JWsk8hyrUdiFvfA6sZIFzLklNYCQ+cOvZHz/WsGoAoGCCqGSM49
            AwEHoUQDQgAEvKwdba8ZRjQtTvrO8Vj7aROp9Gu1TXL8xCgVTKnc5n5/PoV9hfV5
            aItxdhz3GLgG+kbIfG6Ym4UV6zMO+5bkSg==
            -----END EC PRIVATE KEY-----
            """
        #expect(try key(sec1).privateKey.rawRepresentation == key(Self.p8).privateKey.rawRepresentation)
    }

    @Test(arguments: [
        "", "   \n", "not a key", "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg",
        "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----",
        "-----BEGIN CERTIFICATE-----\nbm90IGEga2V5\n-----END CERTIFICATE-----",
    ])
    func invalidPEM_isAPrivateKeyConfigurationError(pem: String) {
        #expect(setting { _ = try key(pem) } == .privateKey)
    }

    @Test func otherCurve_isAPrivateKeyConfigurationError() {
        // An ES384 key is a key, but not one Apple's ES256 tokens can be signed with
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        #expect(setting { _ = try key(p384) } == .privateKey)
    }

    @Test func error_namesTheSetting_andNeverHoldsTheKey() {
        let broken = Self.p8.replacingOccurrences(of: "98DqxkgX", with: "!!!!!!!!")
        do {
            _ = try key(broken)
            Issue.record("a broken key was accepted")
        } catch {
            #expect(error.setting == .privateKey)
            #expect(error.description.hasPrefix("privateKey: "))
            #expect(!error.description.contains("MIGHAgEAMBMG"))
        }
    }

    @Test func emptyOrSpacedIDs_areConfigurationErrors() {
        #expect(setting { _ = try key(Self.p8, keyID: "") } == .keyID)
        #expect(setting { _ = try key(Self.p8, issuerID: "") } == .issuerID)
        #expect(setting { _ = try key(Self.p8, bundleID: "") } == .bundleID)
        #expect(setting { _ = try key(Self.p8, keyID: "ABC DEF") } == .keyID)
    }

    @Test func description_hidesThePrivateKey() throws {
        let text = String(describing: try key(Self.p8))
        #expect(text.contains("keyID: K"))
        #expect(!text.contains("BEGIN"))
        #expect(!text.contains(try key(Self.p8).privateKey.rawRepresentation.base64EncodedString()))
    }
}
