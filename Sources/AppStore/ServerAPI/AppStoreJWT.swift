import Crypto
import Foundation
import PipelineCore

/// A JSON Web Token that authorizes App Store Server API requests
/// ([Generating JSON Web Tokens for API requests](https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests)).
///
/// Header `{"alg": "ES256", "kid": keyID, "typ": "JWT"}`; payload `{"iss": issuerID, "iat": now,
/// "exp": now + lifetime, "aud": "appstoreconnect-v1", "bid": bundleID}`; signed with ES256, the
/// signature being the raw `r || s` (64 bytes), all three parts base64url without padding.
/// Apple refuses a token that lives longer than 60 minutes.
///
/// ```swift
/// let jwt = try AppStoreJWT(key: key, issuedAt: Date(), lifetime: .seconds(300))
/// request.headers.append(("Authorization", "Bearer \(jwt.token)"))
/// ```
///
/// Pure: the time is a parameter. ``AppStoreJWTCache`` reuses a token until shortly before it
/// expires.
public struct AppStoreJWT: Hashable, Sendable {
    /// The audience Apple expects: `appstoreconnect-v1`.
    public static let audience = "appstoreconnect-v1"
    /// The longest lifetime Apple accepts: 60 minutes.
    public static let maximumLifetime: Duration = .seconds(60 * 60)
    /// The lifetime used unless told otherwise: 5 minutes, as Apple's own library uses.
    public static let defaultLifetime: Duration = .seconds(5 * 60)

    /// The JOSE header.
    public struct Header: Codable, Hashable, Sendable {
        /// `alg`: always `ES256`.
        public var alg: String
        /// `kid`: the key id.
        public var kid: String
        /// `typ`: always `JWT`.
        public var typ: String
    }

    /// The payload.
    public struct Claims: Codable, Hashable, Sendable {
        /// `iss`: the issuer id.
        public var iss: String
        /// `iat`: when the token was made, in seconds since 1970.
        public var iat: Int64
        /// `exp`: when it expires, in seconds since 1970.
        public var exp: Int64
        /// `aud`: `appstoreconnect-v1`.
        public var aud: String
        /// `bid`: the app's bundle id.
        public var bid: String
    }

    /// The header as signed.
    public let header: Header
    /// The payload as signed.
    public let claims: Claims
    /// The compact serialization, `header.payload.signature`: what follows `Bearer `.
    public let token: String

    /// When the token was made (`iat`).
    public var issuedAt: Date { Date(timeIntervalSince1970: TimeInterval(claims.iat)) }
    /// When it stops being accepted (`exp`).
    public var expiresAt: Date { Date(timeIntervalSince1970: TimeInterval(claims.exp)) }

    /// Makes and signs a token.
    /// - Parameters:
    ///   - key: Whose token, and the key to sign it with.
    ///   - issuedAt: The `iat`; whole seconds, rounded down.
    ///   - lifetime: How long it is accepted: at least one second, at most ``maximumLifetime``.
    /// - Throws: ``AppStoreServerAPIConfigurationError`` naming `tokenLifetime` for a lifetime out
    ///   of range, or `privateKey` if signing fails.
    public init(
        key: AppStoreServerAPIKey, issuedAt: Date, lifetime: Duration = AppStoreJWT.defaultLifetime
    ) throws(AppStoreServerAPIConfigurationError) {
        let seconds = try Self.lifetimeSeconds(lifetime)
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        let header = Header(alg: "ES256", kid: key.keyID, typ: "JWT")
        let claims = Claims(iss: key.issuerID, iat: iat, exp: iat + seconds, aud: Self.audience, bid: key.bundleID)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Plain strings and integers always encode.
        let headerPart = Base64URL.encode((try? encoder.encode(header)) ?? Data())
        let claimsPart = Base64URL.encode((try? encoder.encode(claims)) ?? Data())
        let signingInput = headerPart + "." + claimsPart
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try key.privateKey.signature(for: Data(signingInput.utf8))
        } catch {
            throw AppStoreServerAPIConfigurationError(.privateKey, "cannot sign with it (\(error))")
        }
        self.header = header
        self.claims = claims
        self.token = signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// `lifetime` in whole seconds, if Apple would accept it.
    static func lifetimeSeconds(_ lifetime: Duration) throws(AppStoreServerAPIConfigurationError) -> Int64 {
        guard lifetime >= .seconds(1) else {
            throw AppStoreServerAPIConfigurationError(.tokenLifetime, "must be at least 1 second, not \(lifetime)")
        }
        guard lifetime <= maximumLifetime else {
            throw AppStoreServerAPIConfigurationError(
                .tokenLifetime, "must be at most 60 minutes (Apple refuses longer), not \(lifetime)")
        }
        return lifetime.components.seconds
    }

}
