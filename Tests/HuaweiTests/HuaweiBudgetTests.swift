import Database
import Foundation
import Huawei
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StorePlugins
import StubStore
import Testing

/// Huawei's call budget, kept in the pipeline's database as every process keeps it, on both
/// backends: the Order service, the Subscription service and confirmations book their turns
/// in the app's one budget, a turn too far ahead is not sent, and Huawei's `429` pauses
/// every process and is retried.
@Suite struct HuaweiBudgetTests {
    static var consumable: [String: Any] {
        ["product_id": "coins_100", "purchase_token": "tok-1", "type": "consumable"]
    }
    static var subscription: [String: Any] {
        ["product_id": "vip", "purchase_token": "sub-1", "type": "subscription", "subscription_id": "s-1"]
    }
    static let owed = HuaweiConfirmation(productID: "coins_100", purchaseToken: "tok-1").json
    static var budgetName: String { "huawei/\(StubHuawei.clientID)" }

    func register(_ stub: StubHuawei) {
        stub.register(.init(token: "tok-1", productID: "coins_100", kind: .consumable))
        stub.register(.init(token: "sub-1", productID: "vip", kind: .subscription, subscriptionID: "s-1"))
    }

    func verify(_ huawei: HuaweiStore, _ context: StoreContext, _ member: [String: Any]) async throws
        -> VerificationOutcome
    {
        try await huawei.verifier(context).verify(.huawei(try huawei.receiptEvidence(member)))
    }

    static func nowMicros() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    @Test(arguments: TestBackend.allCases) func ordersSubscriptionsAndConfirmationsSpendTheAppsOneBudget(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            try await HuaweiFixture.run { fixture in
                // Given the pipeline's budgets, at Huawei's default pace
                register(fixture.stub)
                let huawei = fixture.huawei(quota: HuaweiQuota())
                let context = fixture.context(budgets: CallBudgetRepository(database))

                // When a consumable and a subscription are verified and the consumable confirmed
                guard case .valid = try await verify(huawei, context, Self.consumable),
                    case .valid = try await verify(huawei, context, Self.subscription)
                else {
                    Issue.record("both purchases should verify")
                    return
                }
                #expect(await huawei.confirm(Self.owed, context: context) == .done)

                // Then the three calls were booked in one budget, the app's, at 50 a second
                let usage = try await CallBudgetRepository(database).usage(now: Self.nowMicros())
                #expect(usage.map(\.name) == [Self.budgetName], "\(usage)")
                #expect(usage.first?.calls == 3 && usage.first?.perSecond == 50, "\(usage)")
                #expect(fixture.stub.stats.calls == ["orders.verify": 1, "subscriptions.get": 1, "orders.confirm": 1])
            }
        }
    }

    @Test(arguments: TestBackend.allCases) func aTurnTooFarAheadIsNotSentAndCostsNoAttempt(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await HuaweiFixture.run { fixture in
                // Given a budget of one call a minute, and callers that wait at most 100 ms
                register(fixture.stub)
                let huawei = fixture.huawei(quota: HuaweiQuota(perSecond: 1.0 / 60, maxWait: .milliseconds(100)))
                let context = fixture.context(budgets: CallBudgetRepository(database))
                guard case .valid = try await verify(huawei, context, Self.consumable) else {
                    Issue.record("the first call should verify")
                    return
                }

                // When a subscription is verified and a consumable confirmed within the minute
                let deferred = try await verify(huawei, context, Self.subscription)
                let confirmed = await huawei.confirm(Self.owed, context: context)

                // Then the verification is deferred to the turn (no attempt spent), the
                // confirmation tried again then, and Huawei was asked nothing more
                guard case .deferred(let reason, let retryAfter) = deferred else {
                    Issue.record("expected deferred, got \(deferred)")
                    return
                }
                #expect(reason == "huawei_budget" && retryAfter > .seconds(50) && retryAfter <= .seconds(60))
                guard case .transient(let why, let when) = confirmed, let when else {
                    Issue.record("expected a transient confirmation with a time, got \(confirmed)")
                    return
                }
                #expect(why == "huawei_over_budget" && when > .seconds(50) && when <= .seconds(60))
                #expect(fixture.stub.stats.calls == ["orders.verify": 1])
            }
        }
    }

    @Test(arguments: TestBackend.allCases) func a429PausesEveryProcessAndIsRetriedAsTransient(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await HuaweiFixture.run { fixture in
                // Given two processes' keepers over one database, and Huawei answering the
                // next call 429 with Retry-After: 1
                register(fixture.stub)
                let huawei = fixture.huawei(quota: HuaweiQuota())
                let (one, two) = (
                    fixture.context(budgets: CallBudgetRepository(database)),
                    fixture.context(budgets: CallBudgetRepository(database))
                )
                fixture.stub.configuration.withLock {
                    $0.rateLimitFirst = 1
                    $0.retryAfterSeconds = 1
                }

                // When one process verifies, then the other at once
                let start = ContinuousClock.now
                let limited = try await verify(huawei, one, Self.consumable)
                let retried = try await verify(huawei, two, Self.consumable)

                // Then the first is transient, back after the Retry-After; the second waited
                // out the pause, which began after `start`, before it was sent, and verified (a
                // lower bound only: how long the machine took besides is not the test's)
                #expect(limited == .transient(reason: "huawei_rate_limited", retryAfter: .seconds(1)))
                #expect(ContinuousClock.now - start >= .milliseconds(900))
                guard case .valid = retried else {
                    Issue.record("the call after the pause should verify: \(retried)")
                    return
                }

                // And a confirmation answered 429 is tried again, after the pause, and done
                // (timed from before the 429, as the pause begins with it: timed from after,
                // a slow machine had already spent part of the pause and the bound failed)
                let served = fixture.stub.stats.calls.values.reduce(0, +)
                fixture.stub.configuration.withLock { $0.rateLimitFirst = served + 1 }
                let again = ContinuousClock.now
                #expect(
                    await huawei.confirm(Self.owed, context: one)
                        == .transient(reason: "huawei_rate_limited", retryAfter: .seconds(1)))
                #expect(await huawei.confirm(Self.owed, context: two) == .done)
                #expect(ContinuousClock.now - again >= .milliseconds(900))
                #expect(fixture.stub.stats.confirmed == ["tok-1"])
            }
        }
    }
}
