import Crypto
import CryptoExtras
import Foundation
import HTTPClient
import Hummingbird
import PipelineCore

extension StubGooglePlay {
    /// The key id of the stub's push-signing key, as its JWKS names it.
    public static let pushKeyID = "stub-push-1"
    /// The service account the stub's pushes are made on behalf of, unless told another.
    public static let pushServiceAccount = "pubsub-push@stub-project.iam.gserviceaccount.com"
    public static let certsPath = "/google/oauth2/v3/certs"

    /// The OIDC token Cloud Pub/Sub would send with a push to `audience`, on behalf of
    /// `email`, signed by the stub's key (published at `/google/oauth2/v3/certs`).
    public func pushToken(
        audience: String, email: String = pushServiceAccount, issuedAt: Date? = nil, lifetime: TimeInterval = 3600,
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

    /// The body Cloud Pub/Sub pushes for `notification`, a `DeveloperNotification` (the
    /// `packageName`, `eventTimeMillis` and one kind of notification), as message `messageID`.
    public static func pushBody(
        _ notification: [String: Any], messageID: String,
        subscription: String = "projects/stub-project/subscriptions/play-rtdn"
    ) -> Data {
        let data = (try? JSONSerialization.data(withJSONObject: notification, options: .sortedKeys)) ?? Data()
        let envelope: [String: Any] = [
            "message": ["data": data.base64EncodedString(), "messageId": messageID, "message_id": messageID],
            "subscription": subscription,
        ]
        return (try? JSONSerialization.data(withJSONObject: envelope, options: .sortedKeys)) ?? Data()
    }

    /// Pushes `notification` to `url` as Pub/Sub would: a fresh message id, an OIDC token for
    /// `audience` (the URL unless told another). The endpoint's status, and the message id.
    public func push(
        _ notification: [String: Any], to url: String, audience: String? = nil, email: String = pushServiceAccount,
        messageID: String = String(UInt64.random(in: 1_000_000_000...9_999_999_999_999)), http: CurlHTTPClient
    ) async throws -> (status: Int, messageID: String) {
        let response = try await http.execute(
            HTTPClient.HTTPRequest(
                method: .post, url: url,
                headers: [
                    (name: "Authorization", value: "Bearer " + pushToken(audience: audience ?? url, email: email)),
                    (name: "Content-Type", value: "application/json"),
                ], body: Array(Self.pushBody(notification, messageID: messageID))))
        return (response.status, messageID)
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
