import AppStore
import Crypto
import Foundation
import Synchronization
import Testing

/// The JWT is checked by decoding it here, independently of how it was built.
@Suite struct AppStoreJWTTests {
    let privateKey = P256.Signing.PrivateKey()
    var key: AppStoreServerAPIKey {
        get throws {
            try AppStoreServerAPIKey(
                privateKey: privateKey, keyID: "2X9R4HXF34", issuerID: "57246542-96fe-1a63-e053-0824d011072a",
                bundleID: "com.example.game")
        }
    }
    let issuedAt = Date(timeIntervalSince1970: 1_700_000_000.75)

    @Test func token_hasAppleHeaderAndClaims() throws {
        // When a token is made
        let jwt = try AppStoreJWT(key: key, issuedAt: issuedAt, lifetime: .seconds(300))
        // Then it has three base64url parts with no padding
        let parts = jwt.token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(!jwt.token.contains("=") && !jwt.token.contains("+") && !jwt.token.contains("/"))
        // And the header is exactly alg, kid, typ
        let headerData = try #require(fromBase64URL(parts[0]))
        let header = try #require(JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        #expect(header.count == 3)
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "2X9R4HXF34")
        #expect(header["typ"] as? String == "JWT")
        // And the payload is exactly iss, iat, exp, aud, bid, times in whole seconds
        let claimsData = try #require(fromBase64URL(parts[1]))
        let claims = try #require(JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        #expect(claims.count == 5)
        #expect(claims["iss"] as? String == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["bid"] as? String == "com.example.game")
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_700_000_000)
        #expect((claims["exp"] as? NSNumber)?.int64Value == 1_700_000_300)
        #expect(jwt.expiresAt == Date(timeIntervalSince1970: 1_700_000_300))
    }

    @Test func signature_isRawRS_andVerifiesWithThePublicKey() throws {
        let jwt = try AppStoreJWT(key: key, issuedAt: issuedAt)
        let parts = jwt.token.split(separator: ".", omittingEmptySubsequences: false)
        let signature = try #require(fromBase64URL(parts[2]))
        // ES256 in JWS is r || s, 32 bytes each, not DER
        #expect(signature.count == 64)
        let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        let input = Data((parts[0] + "." + parts[1]).utf8)
        #expect(privateKey.publicKey.isValidSignature(ecdsa, for: input))
        // And it does not verify with another key, nor over other claims
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(ecdsa, for: input))
        #expect(!privateKey.publicKey.isValidSignature(ecdsa, for: Data((parts[0] + ".e30").utf8)))
    }

    @Test func defaultLifetime_isFiveMinutes_andNeverOverAnHour() throws {
        let jwt = try AppStoreJWT(key: key, issuedAt: issuedAt)
        #expect(jwt.claims.exp - jwt.claims.iat == 300)
        let longest = try AppStoreJWT(key: key, issuedAt: issuedAt, lifetime: .seconds(3600))
        #expect(longest.claims.exp - longest.claims.iat == 3600)
    }

    @Test(arguments: [Duration.seconds(3601), .seconds(7200), .zero, .milliseconds(500), .seconds(-5)])
    func lifetimeOutOfRange_isConfigurationError(lifetime: Duration) throws {
        #expect {
            try AppStoreJWT(key: key, issuedAt: issuedAt, lifetime: lifetime)
        } throws: { error in
            (error as? AppStoreServerAPIConfigurationError)?.setting == .tokenLifetime
        }
    }

    @Test func cache_reusesTokenUntilTheLastMinute_thenMakesANewOne() throws {
        // Given a cache on a clock we move by hand
        let clock = Mutex(issuedAt)
        let cache = try AppStoreJWTCache(key: key, lifetime: .seconds(300), now: { clock.withLock { $0 } })
        let first = try cache.token()
        // When asked again within the first four minutes
        clock.withLock { $0 = issuedAt.addingTimeInterval(239) }
        // Then the same token comes back
        #expect(try cache.token() == first)
        // When less than a minute of its life is left
        clock.withLock { $0 = issuedAt.addingTimeInterval(241) }
        // Then a fresh one is made, issued now
        let second = try cache.token()
        #expect(second != first)
        #expect(second.claims.iat == Int64(issuedAt.addingTimeInterval(241).timeIntervalSince1970))
        #expect(try cache.token() == second)
    }

    @Test func cache_remakesTokenWhenTheClockGoesBack() throws {
        let clock = Mutex(issuedAt)
        let cache = try AppStoreJWTCache(key: key, now: { clock.withLock { $0 } })
        let first = try cache.token()
        clock.withLock { $0 = issuedAt.addingTimeInterval(-120) }
        let second = try cache.token()
        #expect(second != first)
        #expect(second.issuedAt <= issuedAt.addingTimeInterval(-120))
    }

    @Test func cache_refusesALifetimeOverAnHourAtStart() throws {
        #expect(throws: AppStoreServerAPIConfigurationError.self) {
            try AppStoreJWTCache(key: key, lifetime: .seconds(61 * 60))
        }
    }
}
