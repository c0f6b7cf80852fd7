import Foundation
import GooglePlay
import PipelineCore
import StorePlugins
import Testing

/// Google's quota buckets, kept as call budgets every client shares: calls are spaced to
/// the bucket's rate, a turn too far ahead defers the message (no attempt spent), and a
/// `429` pauses the bucket for everyone until its `Retry-After`.
@Suite struct GooglePlayQuotaTests {
    static let package = GooglePlayFixture.package

    @Test func callsToABucketAreSpacedAcrossClientsAndBucketsAreApart() async throws {
        try await GooglePlayFixture.run { fixture in
            // Given two clients sharing one keeper, a bucket of 120 a minute (one every 500 ms)
            let keeper = LocalCallBudgetKeeper()
            let quota = GooglePlayQuota(perMinute: 120, share: 1)
            let (one, two) = (
                try fixture.client(quota: quota, budgets: keeper), try fixture.client(quota: quota, budgets: keeper)
            )
            fixture.play.register(
                token: "tok",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: "coins")], purchaseState: "PURCHASED", orderId: "GPA.1"))
            #expect(quota.budget(for: "productsv2.get").name == "googleplay/one_time_purchases")
            #expect(quota.budget(for: "subscriptionsv2.get").name == "googleplay/subscriptions")
            #expect(quota.budget(for: "voidedpurchases.list") == quota.budget(for: "products.consume"))

            // When they make five one-time-purchase calls between them
            let start = ContinuousClock.now
            for index in 0..<5 {
                _ = try await (index % 2 == 0 ? one : two).productPurchase(packageName: Self.package, token: "tok")
            }
            // Then the fifth went at least four spacings after the first (a lower bound: a
            // loaded machine is only ever later)
            #expect(ContinuousClock.now - start >= .milliseconds(2000))

            // And the subscriptions bucket has its own budget: its first call does not queue
            // behind them (it is asked whether it may go, not timed)
            let (grant, _) = keeper.reserve(quota.budget(for: "subscriptionsv2.get"), maxWait: .zero) {
                Int64(Date().timeIntervalSince1970 * 1_000_000)
            }
            guard case .go = grant else {
                Issue.record("the subscriptions bucket waited behind the one-time bucket: \(grant)")
                return
            }
        }
    }

    @Test func aTurnTooFarAheadDefersTheMessageWithoutACall() async throws {
        try await GooglePlayFixture.run { fixture in
            // Given a bucket of one a minute, and a caller that waits at most 100 ms
            let quota = GooglePlayQuota(perMinute: 1, share: 1, maxWait: .milliseconds(100))
            let client = try fixture.client(quota: quota)
            fixture.play.register(
                token: "tok",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: "coins")], purchaseState: "PURCHASED", orderId: "GPA.1"))
            _ = try await client.productPurchase(packageName: Self.package, token: "tok")

            // When a second call is due a minute later
            let verifier = GooglePlayVerifier(client: client, configuration: .init())
            let outcome = await verifier.verify(
                Submission(
                    id: "r2", accountID: "a",
                    evidence: .googlePlay(
                        GooglePlayPurchase(packageName: Self.package, productID: "coins", purchaseToken: "tok")),
                    submittedAt: Date()))

            // Then it is deferred to come back then, and Google was not asked
            guard case .deferred(let reason, let retryAfter) = outcome else {
                Issue.record("expected deferred, got \(outcome)")
                return
            }
            #expect(reason == "google_play_budget" && retryAfter > .seconds(50) && retryAfter <= .seconds(60))
            #expect(fixture.play.stats.calls["productsv2.get"] == 1)
        }
    }

    @Test func a429PausesTheBucketForEveryClient() async throws {
        try await GooglePlayFixture.run { fixture in
            // Given Google answering the first call 429 with Retry-After: 1
            fixture.play.configuration.withLock {
                $0.rateLimitFirst = 1
                $0.retryAfterSeconds = 1
            }
            fixture.play.register(
                token: "tok",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: "coins")], purchaseState: "PURCHASED", orderId: "GPA.1"))
            let keeper = LocalCallBudgetKeeper()
            let (one, two) = (try fixture.client(budgets: keeper), try fixture.client(budgets: keeper))
            do {
                _ = try await one.productPurchase(packageName: Self.package, token: "tok")
                Issue.record("the 429 was not an error")
            } catch let error as StoreCallError {
                #expect(error.code == .rateLimited && error.retryAfter == .seconds(1))
            }

            // When another client calls the same bucket at once
            let start = ContinuousClock.now
            _ = try await two.productPurchase(packageName: Self.package, token: "tok")

            // Then it waited out the pause first (at least most of the second)
            #expect(ContinuousClock.now - start >= .milliseconds(900))
        }
    }
}
