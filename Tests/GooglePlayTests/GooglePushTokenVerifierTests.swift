import Foundation
import GooglePlay
import PipelineCore
import StubStore
import Testing

/// The OIDC token of a Pub/Sub push: Google's key, Google's issuer, this endpoint's
/// audience, the subscription's service account, not expired; anything else refused with
/// its reason.
@Suite struct GooglePushTokenVerifierTests {
    static let audience = "https://iap.example.com/v1/google/notifications"
    static let email = "pubsub-push@my-project.iam.gserviceaccount.com"

    @Test func onlyGooglesTokenForThisEndpointAndAccountIsTaken() async throws {
        try await GooglePlayFixture.run { fixture in
            let verifier = GooglePushTokenVerifier(
                configuration: .init(
                    audience: Self.audience, serviceAccountEmail: Self.email,
                    certsURL: fixture.baseURL + "/google/oauth2/v3/certs"),
                httpClient: fixture.http)
            func refusal(_ authorization: String?) async -> String? {
                do {
                    _ = try await verifier.verify(authorization: authorization)
                    return nil
                } catch { return error.reason }
            }
            let play = fixture.play
            let good = play.pushToken(audience: Self.audience, email: Self.email)
            let claims = try await verifier.verify(authorization: "Bearer \(good)")
            #expect(claims["email"] == Self.email && claims["aud"] == Self.audience)

            let stranger = StubGooglePlay().pushToken(audience: Self.audience, email: Self.email)
            let cases: [(String?, String)] = [
                (nil, "no bearer token"),
                ("Basic abc", "no bearer token"),
                ("Bearer not.a.jwt!", "the token is not a JWT"),
                ("Bearer \(stranger)", "the token's signature is not Google's"),
                (
                    "Bearer \(play.pushToken(audience: "https://elsewhere.example.com", email: Self.email))",
                    "the token is for another audience"
                ),
                (
                    "Bearer \(play.pushToken(audience: Self.audience, email: "someone@else.iam.gserviceaccount.com"))",
                    "the token is not the push subscription's service account"
                ),
                (
                    "Bearer \(play.pushToken(audience: Self.audience, email: Self.email, issuer: "https://evil.example.com"))",
                    "the token was not issued by Google"
                ),
                (
                    "Bearer \(play.pushToken(audience: Self.audience, email: Self.email, issuedAt: Date().addingTimeInterval(-7200)))",
                    "the token has expired or is not valid yet"
                ),
            ]
            for (authorization, reason) in cases {
                #expect(await refusal(authorization) == reason, "\(authorization ?? "nil")")
            }
            // A token signed by the stranger's key but naming the stub's key id is still refused
            // (above); one naming a key Google never published is refused by name
            let parts = good.split(separator: ".")
            let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"rotated-away"}"#.utf8))
            #expect(await refusal("Bearer \(header).\(parts[1]).\(parts[2])") == "no Google key rotated-away")
        }
    }
}
