import Crypto
import Foundation
import Hummingbird
import PipelineCore
import _CryptoExtras

extension StubGooglePlay {
    /// The key id of the stub's push-signing key, as its JWKS names it.
    public static let pushKeyID = "stub-push-1"
    static let certsPath = "/google/oauth2/v3/certs"

    /// The OIDC token Cloud Pub/Sub would send with a push to `audience`, on behalf of
    /// `email`, signed by the stub's key (published at `/google/oauth2/v3/certs`).
    public func pushToken(
        audience: String, email: String, issuedAt: Date? = nil, lifetime: TimeInterval = 3600,
        issuer: String = "https://accounts.google.com"
    ) -> String {
        let iat = Int64((issuedAt ?? now()).timeIntervalSince1970)
        let header: [String: Any] = ["alg": "RS256", "kid": Self.pushKeyID, "typ": "JWT"]
        let claims: [String: Any] = [
            "iss": issuer, "aud": audience, "email": email, "email_verified": true, "iat": iat,
            "exp": iat + Int64(lifetime), "sub": "1234567890",
        ]
        func part(_ object: [String: Any]) -> String {
            Base64URL.encode((try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data())
        }
        let input = part(header) + "." + part(claims)
        let signature =
            (try? pushKey.signature(for: SHA256.hash(data: Array(input.utf8)), padding: .insecurePKCS1v1_5))
            .map { Base64URL.encode($0.rawRepresentation) } ?? ""
        return input + "." + signature
    }

    /// The JWKS of the push-signing key, as `https://www.googleapis.com/oauth2/v3/certs` serves Google's.
    func registerPushRoutes(on router: Router<BasicRequestContext>) {
        router.get(RouterPath(Self.certsPath)) { _, _ in
            guard let primitives = try? self.pushKey.publicKey.getKeyPrimitives() else {
                return Self.error(500, "INTERNAL", "no key")
            }
            let key: [String: Any] = [
                "kty": "RSA", "alg": "RS256", "use": "sig", "kid": Self.pushKeyID,
                "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent),
            ]
            return Self.json(["keys": [key]], status: 200)
        }
    }
}
