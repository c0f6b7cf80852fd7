import Foundation
import GooglePlay
import HTTPClient
import PipelineCore
import StorePlugins
import StubStore
import Testing

/// The Play Developer API client against the stub, over real HTTP: the service account's
/// RS256 assertion traded once for a token, purchases read, acknowledged and consumed,
/// voided purchases paged, and each failure classified.
@Suite struct GooglePlayClientTests {
    static let package = GooglePlayFixture.package

    func coins(_ state: String = "PURCHASED", account: String? = "player-1") -> ProductPurchaseV2 {
        ProductPurchaseV2(
            productLineItem: [
                .init(
                    productId: "coins_100",
                    productOfferDetails: .init(
                        consumptionState: "CONSUMPTION_STATE_YET_TO_BE_CONSUMED", quantity: 1, refundableQuantity: 1))
            ], purchaseState: state, orderId: "GPA.1234-5678-9012-34567", obfuscatedExternalAccountId: account,
            purchaseCompletionTime: "2026-11-25T10:00:00Z")
    }

    @Test func aPurchaseIsReadAcknowledgedAndConsumedWithOneTokenExchange() async throws {
        try await GooglePlayFixture.run { fixture in
            fixture.play.register(token: "tok-1", coins())
            let client = try fixture.client()

            let purchase = try await client.productPurchase(packageName: Self.package, token: "tok-1")
            #expect(purchase.isPurchased && !purchase.isAcknowledged && !purchase.isTest)
            #expect(purchase.orderId == "GPA.1234-5678-9012-34567")
            #expect(purchase.obfuscatedExternalAccountId == "player-1")
            #expect(purchase.productLineItem.first?.productId == "coins_100")

            try await client.consumeProduct(packageName: Self.package, productID: "coins_100", token: "tok-1")
            let after = try await client.productPurchase(packageName: Self.package, token: "tok-1")
            #expect(after.isAcknowledged)
            #expect(after.productLineItem.first?.productOfferDetails?.consumptionState == "CONSUMPTION_STATE_CONSUMED")
            #expect(fixture.play.stats.consumed == ["tok-1"])
            // Four calls, one token
            #expect(await client.tokenExchanges == 1 && fixture.play.stats.tokenExchanges == 1)
        }
    }

    @Test func aSubscriptionIsReadAndAcknowledged() async throws {
        try await GooglePlayFixture.run { fixture in
            fixture.play.register(
                token: "sub-1",
                SubscriptionPurchaseV2(
                    subscriptionState: "SUBSCRIPTION_STATE_ACTIVE", latestOrderId: "GPA.1111-2222-3333-44444",
                    lineItems: [
                        .init(
                            productId: "vip_monthly", expiryTime: "2026-12-25T10:00:00Z",
                            latestSuccessfulOrderId: "GPA.1111-2222-3333-44444")
                    ], obfuscatedExternalAccountId: "player-2"))
            let client = try fixture.client()
            let subscription = try await client.subscriptionPurchase(packageName: Self.package, token: "sub-1")
            #expect(subscription.grantsAccess && !subscription.isAcknowledged)
            #expect(subscription.externalAccountIdentifiers?.obfuscatedExternalAccountId == "player-2")
            try await client.acknowledgeSubscription(
                packageName: Self.package, subscriptionID: "vip_monthly", token: "sub-1")
            #expect(try await client.subscriptionPurchase(packageName: Self.package, token: "sub-1").isAcknowledged)
        }
    }

    @Test func voidedPurchasesArePagedByTheirTime() async throws {
        try await GooglePlayFixture.run { fixture in
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            for index in 0..<1_005 {
                fixture.play.register(token: "v-\(index)", coins())
                fixture.play.void(token: "v-\(index)", at: t0.addingTimeInterval(Double(index)))
            }
            let client = try fixture.client()
            let first = try await client.voidedPurchases(packageName: Self.package, start: t0, end: t0 + 3600)
            #expect(first.voidedPurchases.count == 1_000)
            let token = try #require(first.tokenPagination?.nextPageToken)
            let second = try await client.voidedPurchases(
                packageName: Self.package, start: t0, end: t0 + 3600, pageToken: token)
            #expect(second.voidedPurchases.map(\.purchaseToken) == (1_000..<1_005).map { "v-\($0)" })
            #expect(second.tokenPagination == nil)
            #expect(fixture.play.product(token: "v-0")?.purchaseStateContext?.purchaseState == "CANCELLED")
        }
    }

    @Test func failuresSayWhetherToRetry() async throws {
        try await GooglePlayFixture.run { fixture in
            fixture.play.register(token: "tok-2", coins())
            let client = try fixture.client()
            func failure(_ call: () async throws(StoreCallError) -> Void) async -> StoreCallError? {
                do {
                    try await call()
                    return nil
                } catch { return error }
            }
            // An unknown token: not found, never retried
            let missing = await failure { () async throws(StoreCallError) in
                _ = try await client.productPurchase(packageName: Self.package, token: "nope")
            }
            #expect(missing?.code == .notFound && missing?.isRetryable == false)
            // Google down, then over quota: retryable, the latter with when to come back (the
            // stub counts calls from its start: the first was the unknown token)
            fixture.play.configuration.withLock {
                $0.failFirst = 2
                $0.rateLimitFirst = 1
                $0.retryAfterSeconds = 7
            }
            let down = await failure { () async throws(StoreCallError) in
                _ = try await client.productPurchase(packageName: Self.package, token: "tok-2")
            }
            #expect(down?.code == .unavailable && down?.isRetryable == true)
            let quota = await failure { () async throws(StoreCallError) in
                _ = try await client.productPurchase(packageName: Self.package, token: "tok-2")
            }
            #expect(quota?.code == .rateLimited && quota?.retryAfter == .seconds(7) && quota?.isRetryable == true)
            // A revoked token: exchanged again once, and the call succeeds
            fixture.play.revokeAccessTokens()
            #expect(try await client.productPurchase(packageName: Self.package, token: "tok-2").isPurchased)
            #expect(await client.tokenExchanges == 2)
            // A bad package name never leaves the process
            let badPackage = await failure { () async throws(StoreCallError) in
                _ = try await client.productPurchase(packageName: "com/../evil", token: "tok-2")
            }
            #expect(badPackage?.code == .invalidRequest)
        }
    }

    @Test func aStubInAnotherProcessTakesPurchasesAndRefundsOverHTTP() async throws {
        try await GooglePlayFixture.run { fixture in
            func post(_ path: String, _ body: String) async throws -> Int {
                try await fixture.http.execute(
                    HTTPRequest(
                        method: .post, url: fixture.baseURL + path, headers: [("Content-Type", "application/json")],
                        body: Array(body.utf8))
                ).status
            }
            let purchase = #"{"purchase_token": "http-1", "product_id": "coins_100", "order_id": "GPA.5-5-0"}"#
            #expect(try await post("/stub/google/purchases", purchase) == 201)
            #expect(try await post("/stub/google/purchases", #"{"product_id": "x"}"#) == 400)
            let client = try fixture.client()
            let read = try await client.productPurchase(packageName: Self.package, token: "http-1")
            #expect(read.isPurchased && read.orderId == "GPA.5-5-0")

            #expect(try await post("/stub/google/voided", #"{"purchase_token": "http-1"}"#) == 200)
            #expect(try await post("/stub/google/voided", #"{"purchase_token": "nope"}"#) == 404)
            let voided = try await client.voidedPurchases(
                packageName: Self.package, start: Date().addingTimeInterval(-60), end: Date())
            #expect(voided.voidedPurchases.map(\.orderId) == ["GPA.5-5-0"])
        }
    }

    @Test func anAssertionSignedByAnotherKeyIsRefusedAsUnauthorized() async throws {
        try await GooglePlayFixture.run { fixture in
            // Another stub's account: same address, another key
            let stranger = StubGooglePlay()
            let account = try GoogleServiceAccount(json: stranger.serviceAccountJSON(baseURL: fixture.baseURL))
            let client = GooglePlayClient(
                account: account, configuration: .init(apiURL: fixture.baseURL + "/google"), httpClient: fixture.http)
            do {
                _ = try await client.productPurchase(packageName: Self.package, token: "tok")
                Issue.record("a forged assertion was taken")
            } catch let error as StoreCallError {
                #expect(error.code == .unauthorized && error.call == "token")
                #expect(error.message.contains("invalid_grant: Invalid JWT Signature."))
            }
        }
    }

    @Test func aKeyFileThatCannotWorkIsNamedWithoutItsKey() throws {
        let valid =
            try JSONSerialization.jsonObject(with: StubGooglePlay().serviceAccountJSON(baseURL: "http://x"))
            as? [String: String] ?? [:]
        let key = try #require(valid["private_key"])
        func problem(_ change: [String: String?]) -> String {
            var file = valid
            for (name, value) in change { file[name] = value }
            let data = (try? JSONSerialization.data(withJSONObject: file)) ?? Data()
            do {
                _ = try GoogleServiceAccount(json: data)
                return "accepted"
            } catch { return error.description }
        }
        #expect(problem(["type": "authorized_user"]).contains("not service_account"))
        #expect(problem(["client_email": nil]).contains("no client_email"))
        #expect(
            problem(["private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"]).contains(
                "not an RSA private key"))
        #expect(problem(["token_uri": "ftp://example.com/token"]).contains("token_uri"))
        for message in [problem(["type": "x"]), problem(["private_key": "garbage"])] {
            #expect(message.hasPrefix("IAP_GOOGLE_SERVICE_ACCOUNT: ") && !message.contains("BEGIN"))
        }
        #expect(throws: SettingError.self) { try GoogleServiceAccount(json: Data("not json".utf8)) }
        let account = try GoogleServiceAccount(json: try JSONSerialization.data(withJSONObject: valid))
        #expect(!"\(account)".contains(key.prefix(40)))
    }
}
