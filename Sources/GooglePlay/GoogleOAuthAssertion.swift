import Crypto
import CryptoExtras
import Foundation
import PipelineCore

/// The signed JWT a service account trades for an access token (RFC 7523): RS256 over
/// `{"iss": client_email, "scope", "aud": token_uri, "iat", "exp"}`, valid for an hour.
struct GoogleOAuthAssertion: Sendable {
    /// What the Play Developer API asks for.
    static let androidPublisherScope = "https://www.googleapis.com/auth/androidpublisher"
    static let lifetime: TimeInterval = 3600

    let jwt: String

    init(account: GoogleServiceAccount, scope: String = androidPublisherScope, issuedAt: Date) throws {
        struct Header: Encodable {
            var alg = "RS256"
            var typ = "JWT"
            var kid: String?
        }
        struct Claims: Encodable {
            var iss: String
            var scope: String
            var aud: String
            var iat: Int64
            var exp: Int64
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let iat = Int64(issuedAt.timeIntervalSince1970)
        let header = Base64URL.encode(try encoder.encode(Header(kid: account.privateKeyID)))
        let claims = Base64URL.encode(
            try encoder.encode(
                Claims(
                    iss: account.clientEmail, scope: scope, aud: account.tokenURI, iat: iat,
                    exp: iat + Int64(Self.lifetime))))
        let input = header + "." + claims
        let signature = try account.privateKey.signature(
            for: SHA256.hash(data: Array(input.utf8)), padding: .insecurePKCS1v1_5)
        self.jwt = input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
