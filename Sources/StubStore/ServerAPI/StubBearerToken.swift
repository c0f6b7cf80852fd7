import Crypto
import Foundation

/// Checks the `Authorization: Bearer <JWT>` of an App Store Server API request as Apple does:
/// an ES256 signature by the configured key, `kid`, `iss`, `aud` `appstoreconnect-v1`, `bid`
/// the app's, not expired, not issued in the future, living at most 60 minutes.
///
/// Written apart from the client's ``AppStore/AppStoreJWT`` on purpose, so a mistake in one
/// is not mirrored by the other.
enum StubBearerToken {
    /// Why a token was refused; sent in the stub's `X-Stub-Auth-Failure` header.
    enum Failure: String, Error, Hashable, Sendable {
        case noKeyConfigured = "no_key_configured"
        case missing
        case malformed
        case algorithm
        case keyID = "key_id"
        case signature
        case issuer
        case audience
        case bundleID = "bundle_id"
        case expired
        case issuedInFuture = "issued_in_future"
        case lifetimeTooLong = "lifetime_too_long"
    }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
        var typ: String?
    }

    private struct Claims: Decodable {
        var iss: String?
        var iat: Double?
        var exp: Double?
        var aud: [String]
        var bid: String?

        enum CodingKeys: String, CodingKey {
            case iss, iat, exp, aud, bid
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            iss = try container.decodeIfPresent(String.self, forKey: .iss)
            iat = try container.decodeIfPresent(Double.self, forKey: .iat)
            exp = try container.decodeIfPresent(Double.self, forKey: .exp)
            bid = try container.decodeIfPresent(String.self, forKey: .bid)
            // RFC 7519 allows one audience or an array of them.
            if let one = try? container.decodeIfPresent(String.self, forKey: .aud) {
                aud = [one]
            } else {
                aud = try container.decodeIfPresent([String].self, forKey: .aud) ?? []
            }
        }
    }

    /// Returns why `authorization` is refused, or `nil` if it is accepted.
    /// - Parameters:
    ///   - authorization: The `Authorization` header's value.
    ///   - configuration: The key, key id and issuer to require.
    ///   - bundleID: The `bid` to require.
    ///   - now: The stub's clock.
    static func check(
        _ authorization: String?, configuration: StubServerAPIConfiguration, bundleID: String, now: Date
    ) -> Failure? {
        guard let publicKey = configuration.publicKey else { return .noKeyConfigured }
        guard let authorization, authorization.hasPrefix("Bearer ") else { return .missing }
        let parts = authorization.dropFirst("Bearer ".count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = decodeBase64URL(parts[0]), let claimsData = decodeBase64URL(parts[1]),
            let signatureData = decodeBase64URL(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimsData)
        else { return .malformed }
        guard header.alg == "ES256", header.typ == nil || header.typ == "JWT" else { return .algorithm }
        guard let kid = header.kid, configuration.keyID == nil || kid == configuration.keyID else { return .keyID }
        let signingInput = Data(parts[0].utf8) + Data(".".utf8) + Data(parts[1].utf8)
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            publicKey.isValidSignature(signature, for: signingInput)
        else { return .signature }
        guard let iss = claims.iss, configuration.issuerID == nil || iss == configuration.issuerID else {
            return .issuer
        }
        guard claims.aud.contains("appstoreconnect-v1") else { return .audience }
        guard claims.bid == bundleID else { return .bundleID }
        let nowSeconds = now.timeIntervalSince1970
        guard let exp = claims.exp, nowSeconds < exp else { return .expired }
        let skew = Double(configuration.allowedClockSkew.components.seconds)
        guard let iat = claims.iat, iat <= nowSeconds + skew else { return .issuedInFuture }
        guard exp - iat <= 3600 else { return .lifetimeTooLong }
        return nil
    }

    /// Base64url, padded or not; `nil` if it is not.
    static func decodeBase64URL(_ text: Substring) -> Data? {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") || base64.count % 4 == 0 else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
