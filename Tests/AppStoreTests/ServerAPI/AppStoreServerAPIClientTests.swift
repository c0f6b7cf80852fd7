import AppStore
import Crypto
import Foundation
import HTTPClient
import PipelineCore
import StubStore
import Testing

/// The client against the real stub store over HTTP on loopback, with the real libcurl client.
@Suite struct AppStoreServerAPIClientTests {
    @Test func getTransactionInfo_inProduction() async throws {
        try await ServerAPIFixture.run { fixture in
            // Given a production transaction
            fixture.api.register(signedTransaction: jws("2000000000000001"), transactionID: "2000000000000001")
            // When its info is asked for
            let info = try await fixture.client().getTransactionInfo(transactionID: "2000000000000001")
            // Then production answers with the signed transaction, and the sandbox is not asked
            #expect(info.body.signedTransactionInfo == jws("2000000000000001"))
            #expect(info.environment == .production)
            let stats = fixture.api.stats
            #expect(stats.production.requests == 1)
            #expect(stats.production.count(status: 200) == 1)
            #expect(stats.sandbox.requests == 0)
        }
    }

    @Test func sandboxOnlyTransaction_isNotFoundInProduction_thenFoundInTheSandbox() async throws {
        try await ServerAPIFixture.run { fixture in
            fixture.api.register(
                signedTransaction: jws("2000000000000002"), transactionID: "2000000000000002", environment: .sandbox)
            let info = try await fixture.client().getTransactionInfo(transactionID: "2000000000000002")
            #expect(info.body.signedTransactionInfo == jws("2000000000000002"))
            #expect(info.environment == .sandbox)
            // Production said 4040010 once, then the sandbox answered
            let stats = fixture.api.stats
            #expect(stats.production.count(status: 404) == 1)
            #expect(stats.sandbox.count(status: 200) == 1)
        }
    }

    @Test func unknownEverywhere_isPermanent4040010FromTheSandbox() async throws {
        try await ServerAPIFixture.run { fixture in
            let client = try fixture.client()
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await client.getTransactionInfo(transactionID: "2000000000000404")
                })
            #expect(error.apiErrorCode == .transactionIDNotFound)
            #expect(error.status == 404)
            #expect(error.environment == .sandbox)
            #expect(!error.isRetryable)
            #expect(error.outcome == .rejected(reason: "app_store_api_4040010"))
            #expect(fixture.api.stats.production.requests == 1)
            #expect(fixture.api.stats.sandbox.requests == 1)
        }
    }

    @Test func sandboxFallbackOff_stopsAtProduction() async throws {
        try await ServerAPIFixture.run { fixture in
            fixture.api.register(signedTransaction: jws("7"), transactionID: "7", environment: .sandbox)
            let client = try fixture.client(sandboxFallback: false)
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await client.getTransactionInfo(transactionID: "7")
                })
            #expect(error.apiErrorCode == .transactionIDNotFound)
            #expect(error.environment == .production)
            #expect(fixture.api.stats.sandbox.requests == 0)
        }
    }

    // MARK: 429

    @Test func rateLimitedOnce_withRetryAfter1_waitsASecond_andSucceeds() async throws {
        try await ServerAPIFixture.run({
            $0.rateLimitFirst = 1
            $0.retryAfterSeconds = 1
        }) { fixture in
            fixture.api.register(signedTransaction: jws("11"), transactionID: "11")
            let client = try fixture.client(maxRetries: 2)
            // When the first request meets a 429 with Retry-After: 1
            let clock = ContinuousClock()
            let start = clock.now
            let info = try await client.getTransactionInfo(transactionID: "11")
            let elapsed = clock.now - start
            // Then the client waited about a second, asked again, and got the answer
            #expect(info.body.signedTransactionInfo == jws("11"))
            #expect(elapsed >= .milliseconds(950))
            // Loose: the whole suite shares 2 cores (5.09 s was seen under load).
            #expect(elapsed < .seconds(20))
            let stats = fixture.api.stats.production
            #expect(stats.count(status: 429) == 1)
            #expect(stats.count(status: 200) == 1)
        }
    }

    @Test func rateLimitedBeyondMaxRetries_isRetryableErrorWithRetryAfter() async throws {
        try await ServerAPIFixture.run({
            $0.rateLimitFirst = 5
            $0.retryAfterSeconds = 1
        }) { fixture in
            fixture.api.register(signedTransaction: jws("12"), transactionID: "12")
            let client = try fixture.client(maxRetries: 1)
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await client.getTransactionInfo(transactionID: "12")
                })
            #expect(error.code == .rateLimited)
            #expect(error.status == 429)
            #expect(error.apiErrorCode == .rateLimitExceeded)
            #expect(error.isRetryable)
            #expect(error.retryAfter == .seconds(1))
            #expect(error.outcome == .transient(reason: "app_store_api_4290000", retryAfter: .seconds(1)))
            // One wait, so two requests, both refused
            #expect(fixture.api.stats.production.count(status: 429) == 2)
            #expect(fixture.api.stats.production.count(status: 200) == 0)
        }
    }

    @Test func retryAfterLongerThanTheClientWaits_failsAtOnce() async throws {
        try await ServerAPIFixture.run({
            $0.rateLimitFirst = 1
            $0.retryAfterSeconds = 120
        }) { fixture in
            fixture.api.register(signedTransaction: jws("13"), transactionID: "13")
            let client = try fixture.client(maxRetries: 3, maxRetryAfter: .seconds(10))
            let clock = ContinuousClock()
            let start = clock.now
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await client.getTransactionInfo(transactionID: "13")
                })
            // The hint goes to the caller (a delay tier) rather than hold the worker two minutes:
            // the budget is paused for every caller, so the call is deferred, not failed
            #expect(clock.now - start < .seconds(30))
            let retryAfter = try #require(error.retryAfter)
            #expect(retryAfter > .seconds(119) && retryAfter <= .seconds(120))
            #expect(error.code == .overBudget)
            #expect(error.isRetryable)
            guard case .deferred(let reason, _) = error.outcome else {
                Issue.record("a call over budget is deferred, not attempted: \(error.outcome)")
                return
            }
            #expect(reason == "server_api_budget_getTransactionInfo")
            #expect(fixture.api.stats.production.requests == 1)
        }
    }

    // MARK: Authentication

    @Test func stubTrustingAnotherKey_answers401_permanent() async throws {
        let stranger = P256.Signing.PrivateKey().publicKey
        try await ServerAPIFixture.run(trusting: stranger) { fixture in
            fixture.api.register(signedTransaction: jws("21"), transactionID: "21")
            let client = try fixture.client()
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await client.getTransactionInfo(transactionID: "21")
                })
            #expect(error.code == .unauthorized)
            #expect(error.status == 401)
            #expect(!error.isRetryable)
            #expect(error.outcome == .rejected(reason: "http_401"))
            // Not a reason to ask the sandbox
            #expect(fixture.api.stats.production.count(status: 401) == 1)
            #expect(fixture.api.stats.sandbox.requests == 0)
        }
    }

    // MARK: History

    @Test func transactionHistory_pages_andTheConvenienceReturnsEveryTransaction() async throws {
        try await ServerAPIFixture.run({ $0.pageSize = 3 }) { fixture in
            // Given one customer with 8 transactions, and another customer's 2
            let ids = (1...8).map { "30000000000000\(String(format: "%02d", $0))" }
            for id in ids {
                fixture.api.register(signedTransaction: jws(id), transactionID: id, customerID: "player-1")
            }
            for id in ["3900000000000001", "3900000000000002"] {
                fixture.api.register(signedTransaction: jws(id), transactionID: id, customerID: "player-2")
            }
            let client = try fixture.client()
            // When the first page is asked for by any of the customer's transactions
            let first = try await client.getTransactionHistory(transactionID: ids[4])
            // Then it holds the first three, and more follow
            #expect(first.body.signedTransactions == ids[0..<3].map { jws($0) })
            #expect(first.body.hasMore == true)
            #expect(first.body.bundleID == ServerAPIFixture.bundleID)
            #expect(first.body.environment == "Production")
            #expect(first.body.appAppleID != nil)
            let second = try await client.getTransactionHistory(transactionID: ids[4], revision: first.body.revision)
            #expect(second.body.signedTransactions == ids[3..<6].map { jws($0) })
            // When every page is followed
            let all = try await client.getCompleteTransactionHistory(transactionID: ids[0])
            // Then all eight come back in order, none of the other customer's, after three pages
            #expect(all.body.signedTransactions == ids.map { jws($0) })
            #expect(all.body.hasMore == false)
            #expect(all.body.revision != nil)
            #expect(fixture.api.stats.production.count(status: 200) == 2 + 3)
        }
    }

    @Test func transactionHistory_inTheSandbox_pagesStayInTheSandbox() async throws {
        try await ServerAPIFixture.run({ $0.pageSize = 2 }) { fixture in
            let ids = (1...5).map { "400000000000000\($0)" }
            for id in ids {
                fixture.api.register(
                    signedTransaction: jws(id), transactionID: id, environment: .sandbox, customerID: "tester")
            }
            let all = try await fixture.client().getCompleteTransactionHistory(transactionID: ids[2])
            #expect(all.body.signedTransactions == ids.map { jws($0) })
            #expect(all.environment == .sandbox)
            #expect(all.body.appAppleID == nil)
            // Production was asked once, for the first page; the other pages went straight to the sandbox
            #expect(fixture.api.stats.production.requests == 1)
            #expect(fixture.api.stats.sandbox.count(status: 200) == 3)
        }
    }

    // MARK: Other endpoints

    @Test func lookUpOrderID_findsTheOrdersTransactions_orSaysInvalid() async throws {
        try await ServerAPIFixture.run { fixture in
            fixture.api.register(signedTransaction: jws("51"), transactionID: "51", orderID: "MK5TTTVWJH")
            fixture.api.register(signedTransaction: jws("52"), transactionID: "52", orderID: "MK5TTTVWJH")
            fixture.api.register(signedTransaction: jws("53"), transactionID: "53", orderID: "OTHERORDER")
            let client = try fixture.client()
            let found = try await client.lookUpOrderID("MK5TTTVWJH")
            #expect(found.body.status == .valid)
            #expect(found.body.signedTransactions == [jws("51"), jws("52")])
            let missing = try await client.lookUpOrderID("NOSUCHORDR")
            #expect(missing.body.status == .invalid)
            #expect(missing.body.signedTransactions == [])
        }
    }

    @Test func refundHistory_holdsOnlyTheRefundedTransactions() async throws {
        try await ServerAPIFixture.run({ $0.pageSize = 1 }) { fixture in
            // Given three purchases, two of them refunded later (registered again as revoked)
            for id in ["61", "62", "63"] {
                fixture.api.register(signedTransaction: jws(id), transactionID: id, customerID: "p")
            }
            fixture.api.register(
                signedTransaction: jws("61", "revoked"), transactionID: "61", customerID: "p", isRefunded: true)
            fixture.api.register(
                signedTransaction: jws("63", "revoked"), transactionID: "63", customerID: "p", isRefunded: true)
            let client = try fixture.client()
            // When the refund history is asked for
            let page = try await client.getRefundHistory(transactionID: "62")
            #expect(page.body.signedTransactions == [jws("61", "revoked")])
            #expect(page.body.hasMore == true)
            let all = try await client.getCompleteRefundHistory(transactionID: "62")
            // Then both refunds, in their revoked form, and nothing else
            #expect(all.body.signedTransactions == [jws("61", "revoked"), jws("63", "revoked")])
            #expect(all.body.hasMore == false)
        }
    }

    @Test func allSubscriptionStatuses_latestPerSubscription_byGroup() async throws {
        try await ServerAPIFixture.run { fixture in
            // A monthly VIP subscription renewed once, and a refunded one in another group
            fixture.api.register(
                signedTransaction: jws("71"), transactionID: "71", customerID: "p", subscriptionGroupID: "vip",
                signedRenewalInfo: "renewal-71")
            fixture.api.register(
                signedTransaction: jws("72"), transactionID: "72", originalTransactionID: "71", customerID: "p",
                subscriptionGroupID: "vip", signedRenewalInfo: "renewal-72")
            fixture.api.register(
                signedTransaction: jws("81"), transactionID: "81", customerID: "p", subscriptionGroupID: "pass",
                isRefunded: true)
            fixture.api.register(signedTransaction: jws("91"), transactionID: "91", customerID: "p")  // coins
            let statuses = try await fixture.client().getAllSubscriptionStatuses(transactionID: "91")
            let groups = try #require(statuses.body.data)
            #expect(groups.map(\.subscriptionGroupIdentifier) == ["vip", "pass"])
            let vip = try #require(groups[0].lastTransactions)
            #expect(vip.count == 1)
            #expect(vip[0].originalTransactionID == "71")
            #expect(vip[0].signedTransactionInfo == jws("72"))
            #expect(vip[0].signedRenewalInfo == "renewal-72")
            #expect(vip[0].status == .active)
            #expect(groups[1].lastTransactions?.first?.status == .revoked)
            #expect(statuses.body.bundleID == ServerAPIFixture.bundleID)
        }
    }

    // MARK: Failures without an answer, and at start

    @Test func closedPort_isRetryableTransportFailure() async throws {
        try await ServerAPIFixture.run { fixture in
            let closed = try ClosedPort()
            let client = try AppStoreServerAPIClient(
                key: fixture.key,
                configuration: .init(
                    productionBaseURL: "http://127.0.0.1:\(closed.port)", sandboxBaseURL: fixture.sandboxBaseURL),
                httpClient: fixture.stub.client)
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await client.getTransactionInfo(transactionID: "1")
                })
            #expect(error.code == .transport)
            #expect(error.isRetryable)
            #expect(error.reason == "connection_refused")
            #expect(error.environment == .production)
        }
    }

    @Test func badConfiguration_failsAtStart_namingTheSetting() async throws {
        try await ServerAPIFixture.run { fixture in
            func setting(_ configuration: AppStoreServerAPIClient.Configuration)
                -> AppStoreServerAPIConfigurationError.Setting?
            {
                do {
                    _ = try AppStoreServerAPIClient(
                        key: fixture.key, configuration: configuration, httpClient: fixture.stub.client)
                    return nil
                } catch {
                    return error.setting
                }
            }
            #expect(setting(.init(productionBaseURL: "api.storekit.itunes.apple.com")) == .productionBaseURL)
            #expect(setting(.init(sandboxBaseURL: "ftp://x")) == .sandboxBaseURL)
            #expect(setting(.init(timeout: .zero)) == .timeout)
            #expect(setting(.init(maxRetries: -1)) == .maxRetries)
            #expect(setting(.init(tokenLifetime: .seconds(3601))) == .tokenLifetime)
            #expect(setting(.init()) == nil)
        }
    }

    @Test func invalidPEM_isAConfigurationErrorBeforeAnyRequest() {
        #expect {
            try AppStoreServerAPIKey(
                privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", keyID: "K",
                issuerID: "I", bundleID: "com.example.game")
        } throws: { error in
            (error as? AppStoreServerAPIConfigurationError)?.setting == .privateKey
        }
    }
}
