import Crypto
import CryptoExtras
import Foundation
import HTTPClient
import PipelineCore

/// Checks the OIDC token Cloud Pub/Sub sends with each push of a real-time developer
/// notification (`Authorization: Bearer <JWT>`): RS256 by one of Google's published keys,
/// issued by Google, for this endpoint's audience, on behalf of the push subscription's
/// service account, and not expired. Anything else is refused with the reason, for a 401.
///
/// Google's keys (a JWKS) are fetched from `certsURL`, kept for an hour, and fetched again,
/// at most once a minute, when a token names a key not known yet (Google rotates them).
public final class GooglePushTokenVerifier: Sendable {
    public struct Configuration: Sendable {
        /// The audience set on the push subscription (usually the endpoint's URL).
        public var audience: String
        /// The service account the push subscription authenticates as.
        public var serviceAccountEmail: String
        public var certsURL: String
        public var issuers: Set<String>

        public init(
            audience: String, serviceAccountEmail: String,
            certsURL: String = "https://www.googleapis.com/oauth2/v3/certs",
            issuers: Set<String> = ["https://accounts.google.com", "accounts.google.com"]
        ) {
            self.audience = audience
            self.serviceAccountEmail = serviceAccountEmail
            self.certsURL = certsURL
            self.issuers = issuers
        }
    }

    /// Why a push was refused.
    public struct Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    public let configuration: Configuration
    private let keys: GoogleSigningKeys
    private let now: @Sendable () -> Date

    public init(
        configuration: Configuration, httpClient: CurlHTTPClient, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.keys = GoogleSigningKeys(url: configuration.certsURL, http: httpClient, now: now)
        self.now = now
    }

    /// The token's claims when it holds; otherwise the reason it does not.
    public func verify(authorization: String?) async throws(Refusal) -> [String: String] {
        guard let authorization, authorization.hasPrefix("Bearer ") else { throw Refusal(reason: "no bearer token") }
        let parts = authorization.dropFirst("Bearer ".count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let claimBytes = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2]),
            let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any]
        else { throw Refusal(reason: "the token is not a JWT") }
        guard header["alg"] as? String == "RS256", let kid = header["kid"] as? String else {
            throw Refusal(reason: "the token is not RS256 with a key id")
        }
        guard let key = await keys.key(kid) else { throw Refusal(reason: "no Google key \(kid.prefix(64))") }
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        guard
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input),
                padding: .insecurePKCS1v1_5)
        else { throw Refusal(reason: "the token's signature is not Google's") }
        guard let issuer = claims["iss"] as? String, configuration.issuers.contains(issuer) else {
            throw Refusal(reason: "the token was not issued by Google")
        }
        guard claims["aud"] as? String == configuration.audience else {
            throw Refusal(reason: "the token is for another audience")
        }
        guard claims["email"] as? String == configuration.serviceAccountEmail,
            claims["email_verified"] as? Bool ?? (claims["email_verified"] as? String == "true")
        else { throw Refusal(reason: "the token is not the push subscription's service account") }
        let time = now().timeIntervalSince1970
        // Five minutes of clock skew either way, as Google's own libraries allow.
        guard let exp = claims["exp"] as? Double, exp + 300 > time, let iat = claims["iat"] as? Double,
            iat - 300 < time
        else { throw Refusal(reason: "the token has expired or is not valid yet") }
        return claims.compactMapValues { $0 as? String }
    }
}

/// Google's published signing keys by key id, from a JWKS.
actor GoogleSigningKeys {
    private let url: String
    private let http: CurlHTTPClient
    private let now: @Sendable () -> Date
    private var keys: [String: _RSA.Signing.PublicKey] = [:]
    private var fetchedAt: Date?

    init(url: String, http: CurlHTTPClient, now: @escaping @Sendable () -> Date) {
        self.url = url
        self.http = http
        self.now = now
    }

    func key(_ kid: String) async -> _RSA.Signing.PublicKey? {
        let age = fetchedAt.map { now().timeIntervalSince($0) } ?? .infinity
        if keys[kid] == nil ? age > 60 : age > 3600 { await fetch() }
        return keys[kid]
    }

    private func fetch() async {
        fetchedAt = now()
        guard let response = try? await http.execute(HTTPRequest(url: url)), response.isSuccess,
            let document = try? JSONSerialization.jsonObject(with: response.bodyData) as? [String: Any],
            let list = document["keys"] as? [[String: Any]]
        else { return }
        var found: [String: _RSA.Signing.PublicKey] = [:]
        for entry in list where entry["kty"] as? String == "RSA" {
            guard let kid = entry["kid"] as? String, let n = (entry["n"] as? String).flatMap(Base64URL.decode),
                let e = (entry["e"] as? String).flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { continue }
            found[kid] = key
        }
        if !found.isEmpty { keys = found }
    }
}
