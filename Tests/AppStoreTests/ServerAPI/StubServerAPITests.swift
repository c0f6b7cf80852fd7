import AppStore
import Crypto
import Foundation
import HTTPClient
import StubStore
import Testing

/// The stub's App Store Server API: it refuses tokens as Apple does, and its admin endpoint.
@Suite struct StubServerAPITests {
    struct TokenCase: Sendable, CustomTestStringConvertible {
        var name: String
        var failure: String?
        var header: @Sendable ([String: Any]) -> [String: Any] = { $0 }
        var claims: @Sendable ([String: Any], Int) -> [String: Any] = { claims, _ in claims }
        var otherKey = false

        var testDescription: String { name }
    }

    static let cases: [TokenCase] = [
        TokenCase(name: "as the client makes it", failure: nil),
        TokenCase(
            name: "aud as an array", failure: nil, claims: { c, _ in c.merging(["aud": ["appstoreconnect-v1"]]) { $1 } }
        ),
        TokenCase(name: "HS256", failure: "algorithm", header: { $0.merging(["alg": "HS256"]) { $1 } }),
        TokenCase(name: "typ JWE", failure: "algorithm", header: { $0.merging(["typ": "JWE"]) { $1 } }),
        TokenCase(name: "other kid", failure: "key_id", header: { $0.merging(["kid": "OTHERKEY"]) { $1 } }),
        TokenCase(name: "no kid", failure: "key_id", header: { $0.filter { $0.key != "kid" } }),
        TokenCase(name: "signed by another key", failure: "signature", otherKey: true),
        TokenCase(name: "other issuer", failure: "issuer", claims: { c, _ in c.merging(["iss": "someone"]) { $1 } }),
        TokenCase(
            name: "other audience", failure: "audience",
            claims: { c, _ in c.merging(["aud": "appstoreconnect-v2"]) { $1 } }),
        TokenCase(name: "no audience", failure: "audience", claims: { c, _ in c.filter { $0.key != "aud" } }),
        TokenCase(
            name: "other app", failure: "bundle_id", claims: { c, _ in c.merging(["bid": "com.other.app"]) { $1 } }),
        TokenCase(
            name: "expired", failure: "expired",
            claims: { c, now in c.merging(["iat": now - 600, "exp": now - 1]) { $1 } }),
        TokenCase(name: "no exp", failure: "expired", claims: { c, _ in c.filter { $0.key != "exp" } }),
        TokenCase(
            name: "issued ten minutes ahead", failure: "issued_in_future",
            claims: { c, now in c.merging(["iat": now + 600, "exp": now + 900]) { $1 } }),
        TokenCase(
            name: "living two hours", failure: "lifetime_too_long",
            claims: { c, now in c.merging(["iat": now, "exp": now + 7200]) { $1 } }),
    ]

    @Test(arguments: cases)
    func tokens_areCheckedAsAppleChecksThem(_ tokenCase: TokenCase) async throws {
        let key = P256.Signing.PrivateKey()
        try await ServerAPIFixture.run(clientKey: key) { fixture in
            fixture.api.register(signedTransaction: jws("1"), transactionID: "1")
            let now = Int(Date().timeIntervalSince1970)
            let header = tokenCase.header(["alg": "ES256", "kid": ServerAPIFixture.keyID, "typ": "JWT"])
            let claims = tokenCase.claims(
                [
                    "iss": ServerAPIFixture.issuerID, "iat": now, "exp": now + 300, "aud": "appstoreconnect-v1",
                    "bid": ServerAPIFixture.bundleID,
                ], now)
            let token = try signedToken(
                header: header, claims: claims, key: tokenCase.otherKey ? P256.Signing.PrivateKey() : key)
            let response = try await fixture.get("/inApps/v1/transactions/1", bearer: token)
            if let failure = tokenCase.failure {
                #expect(response.status == 401)
                #expect(response.header("X-Stub-Auth-Failure") == failure)
                #expect(response.bodyString.hasPrefix("Unauthenticated"))
            } else {
                #expect(response.status == 200)
                #expect(response.bodyString.contains(jws("1")))
            }
        }
    }

    @Test func missingOrMalformedBearer_is401() async throws {
        try await ServerAPIFixture.run { fixture in
            let missing = try await fixture.get("/inApps/v1/transactions/1", bearer: nil)
            #expect(missing.status == 401)
            #expect(missing.header("X-Stub-Auth-Failure") == "missing")
            let malformed = try await fixture.get("/sandbox/inApps/v1/transactions/1", bearer: "not.a-jwt")
            #expect(malformed.status == 401)
            #expect(malformed.header("X-Stub-Auth-Failure") == "malformed")
            #expect(fixture.api.stats.sandbox.count(status: 401) == 1)
        }
    }

    @Test func clientTokenFromASkewedClock_is401() async throws {
        try await ServerAPIFixture.run { fixture in
            fixture.api.register(signedTransaction: jws("1"), transactionID: "1")
            // A client whose clock is two hours behind signs tokens that expired long ago
            let behind = try fixture.client(now: { Date().addingTimeInterval(-7200) })
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await behind.getTransactionInfo(transactionID: "1")
                })
            #expect(error.code == .unauthorized)
        }
    }

    @Test func otherBundleID_is401() async throws {
        let privateKey = P256.Signing.PrivateKey()
        try await ServerAPIFixture.run(clientKey: privateKey) { fixture in
            let otherApp = try AppStoreServerAPIKey(
                privateKey: privateKey, keyID: ServerAPIFixture.keyID, issuerID: ServerAPIFixture.issuerID,
                bundleID: "com.other.app")
            let client = try fixture.client(key: otherApp)
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await client.lookUpOrderID("X")
                })
            #expect(error.status == 401)
            #expect(!error.isRetryable)
        }
    }

    @Test func developmentKey_isTrustedByDefault() async throws {
        // `iap up` wires the stub and the client with the development key
        try await StubStoreFixture.run { stub in
            stub.store.serverAPI.register(signedTransaction: jws("5"), transactionID: "5")
            let key = try AppStoreServerAPIKey(
                privateKeyPEM: StubServerAPIConfiguration.developmentPrivateKeyPEM,
                keyID: StubServerAPIConfiguration.developmentKeyID,
                issuerID: StubServerAPIConfiguration.developmentIssuerID,
                bundleID: stub.store.configuration.bundleID)
            let client = try AppStoreServerAPIClient(
                key: key,
                configuration: .init(
                    productionBaseURL: "http://127.0.0.1:\(stub.port)",
                    sandboxBaseURL: "http://127.0.0.1:\(stub.port)/sandbox"),
                httpClient: stub.client)
            #expect(try await client.getTransactionInfo(transactionID: "5").body.signedTransactionInfo == jws("5"))
        }
    }

    // MARK: Apple's validation errors

    @Test func nonNumericTransactionID_is400_4000006_permanent() async throws {
        try await ServerAPIFixture.run { fixture in
            let client = try fixture.client()
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await client.getTransactionInfo(transactionID: "abc")
                })
            #expect(error.status == 400)
            #expect(error.apiErrorCode == .invalidTransactionID)
            #expect(!error.isRetryable)
            #expect(fixture.api.stats.sandbox.requests == 0)
        }
    }

    @Test func unknownRevision_is400_4000005() async throws {
        try await ServerAPIFixture.run { fixture in
            fixture.api.register(signedTransaction: jws("1"), transactionID: "1")
            let client = try fixture.client()
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await client.getTransactionHistory(transactionID: "1", revision: "not-ours")
                })
            #expect(error.apiErrorCode == .invalidRequestRevision)
            #expect(!error.isRetryable)
        }
    }

    // MARK: Admin

    @Test func postStubTransactions_registers_andTheClientFindsIt() async throws {
        try await ServerAPIFixture.run { fixture in
            // When a sandbox transaction is registered over HTTP, with defaults left out
            let body =
                #"{"transaction_id": "2000000000000777", "signed_transaction": "eyJ.abc.def", "environment": "Sandbox", "order_id": "ORDER777"}"#
            let created = try await fixture.stub.client.execute(
                HTTPRequest(
                    method: .post, url: fixture.productionBaseURL + "/stub/transactions",
                    headers: [("Content-Type", "application/json")], body: Array(body.utf8)))
            // Then it is created, with the defaults filled in
            #expect(created.status == 201)
            let echoed = try JSONDecoder().decode(StubServerTransaction.self, from: created.bodyData)
            #expect(echoed.originalTransactionID == "2000000000000777")
            #expect(echoed.environment == .sandbox)
            #expect(!echoed.isRefunded)
            // And the API serves it from the sandbox
            let client = try fixture.client()
            let info = try await client.getTransactionInfo(transactionID: "2000000000000777")
            #expect(info.body.signedTransactionInfo == "eyJ.abc.def")
            #expect(info.environment == .sandbox)
            let order = try await client.lookUpOrderID("ORDER777")
            #expect(order.body.status == .invalid)  // order lookups do not fall back: production does not know it
            #expect(fixture.api.stats.registered == 1)
        }
    }

    @Test func postStubTransactions_withoutTheSignedTransaction_is400() async throws {
        try await ServerAPIFixture.run { fixture in
            let response = try await fixture.stub.client.execute(
                HTTPRequest(
                    method: .post, url: fixture.productionBaseURL + "/stub/transactions",
                    headers: [("Content-Type", "application/json")], body: Array(#"{"transaction_id": "1"}"#.utf8)))
            #expect(response.status == 400)
            #expect(response.bodyString.contains("invalid_transaction"))
            #expect(fixture.api.stats.registered == 0)
        }
    }

    @Test func statsEndpoint_countsRequestsByDeployment() async throws {
        try await ServerAPIFixture.run { fixture in
            _ = try? await fixture.client().getTransactionInfo(transactionID: "42")
            let response = try await fixture.stub.client.execute(
                HTTPRequest(url: fixture.productionBaseURL + "/stub/server-api/stats"))
            let stats = try JSONDecoder().decode(StubServerAPIStats.self, from: response.bodyData)
            #expect(stats.production.count(status: 404) == 1)
            #expect(stats.sandbox.count(status: 404) == 1)
        }
    }
}
