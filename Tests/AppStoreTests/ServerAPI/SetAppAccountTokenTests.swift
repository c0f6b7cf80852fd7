import AppStore
import Foundation
import StubStore
import Testing

/// Set App Account Token (App Store Server API 1.16): the client's call against the stub over
/// loopback, and the stub's refusals as Apple documents them.
@Suite struct SetAppAccountTokenTests {
    static let token = UUID(uuidString: "7E3C1B2A-0F4D-4E5A-9B8C-1D2E3F405162")!

    @Test func theEndpointIsAPutOfTheTokenLowercased_underTheOriginalTransaction() {
        let endpoint = AppStoreServerAPIEndpoint.setAppAccountToken(
            originalTransactionID: "2000000000000071", token: Self.token)
        #expect(endpoint.name == "setAppAccountToken" && endpoint.method == .put)
        #expect(endpoint.path == "/inApps/v1/transactions/2000000000000071/appAccountToken")
        #expect(endpoint.body == Array(#"{"appAccountToken":"7e3c1b2a-0f4d-4e5a-9b8c-1d2e3f405162"}"#.utf8))
    }

    @Test func aPurchaseMadeOutsideTheAppIsBoundToTheAccountsToken() async throws {
        try await ServerAPIFixture.run { fixture in
            // Given a renewal of a subscription first bought with an offer code (no token)
            fixture.api.register(
                signedTransaction: jws("2000000000000072"), transactionID: "2000000000000072",
                originalTransactionID: "2000000000000071", environment: .sandbox)
            fixture.api.register(
                signedTransaction: jws("2000000000000071"), transactionID: "2000000000000071", environment: .sandbox)
            let client = try fixture.client()

            // When the account's token is set on the original transaction
            try await client.setAppAccountToken(
                originalTransactionID: "2000000000000071", token: Self.token, in: .sandbox)

            // Then Apple (the stub) holds it, lowercased, for that purchase
            #expect(
                fixture.api.accountTokens == [
                    .init(
                        environment: .sandbox, originalTransactionID: "2000000000000071",
                        appAccountToken: "7e3c1b2a-0f4d-4e5a-9b8c-1d2e3f405162")
                ])
            #expect(fixture.api.stats.sandbox.count(status: 200) == 1)

            // And a renewal's own id, or an unknown one, is refused for good
            let renewal = await expectAPIError { () async throws(AppStoreServerAPIError) in
                try await client.setAppAccountToken(
                    originalTransactionID: "2000000000000072", token: Self.token, in: .sandbox)
            }
            #expect(renewal?.status == 400 && renewal?.errorCode == 4_000_187 && renewal?.isRetryable == false)
            let unknown = await expectAPIError { () async throws(AppStoreServerAPIError) in
                try await client.setAppAccountToken(
                    originalTransactionID: "2000000000000099", token: Self.token, in: .sandbox)
            }
            #expect(unknown?.status == 404 && unknown?.errorCode == 4_040_010)
            #expect(fixture.api.accountTokens.count == 1)
        }
    }
}
