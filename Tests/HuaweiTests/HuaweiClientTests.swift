import Foundation
import HTTPClient
import Huawei
import PipelineCore
import StorePlugins
import StubStore
import Testing

/// Huawei's Order and Subscription services through the client, against the stub over real
/// HTTP: the app-level token fetched once and reused, refreshed near its expiry, a refused
/// token replaced; purchases verified and consumables confirmed.
@Suite struct HuaweiClientTests {
    @Test func callsShareOneTokenUntilItNearsExpiry() async throws {
        try await HuaweiFixture.run { fixture in
            // Given a consumable, a subscription and one store on a clock of our own
            fixture.stub.register(.init(token: "tok-1", productID: "coins_100", kind: .consumable))
            fixture.stub.register(.init(token: "sub-1", productID: "vip", kind: .subscription, subscriptionID: "s-1"))
            let clock = TestClock()
            let client = fixture.huawei(clock: clock).client(httpClient: fixture.http)

            // When three calls are made
            let order = try await client.verifyOrder(productID: "coins_100", purchaseToken: "tok-1")
            let subscription = try await client.subscription(subscriptionID: "s-1", purchaseToken: "sub-1")
            try await client.confirm(productID: "coins_100", purchaseToken: "tok-1")

            // Then one token served them, and Huawei's signed data was read
            #expect(await client.tokenFetches == 1 && fixture.stub.stats.tokenFetches == 1)
            #expect(order.algorithm == "SHA256WithRSA/PSS")
            #expect(order.verified(by: fixture.settings.publicKey)?.orderId == "stub.order.tok-1")
            #expect(subscription.verified(by: fixture.settings.publicKey)?.subscriptionId == "s-1")
            #expect(fixture.stub.stats.confirmed == ["tok-1"])

            // When the token has less than five minutes left (it lives an hour)
            clock.advance(3_400)
            _ = try await client.verifyOrder(productID: "coins_100", purchaseToken: "tok-1")
            // Then a fresh one is fetched, and kept
            _ = try await client.verifyOrder(productID: "coins_100", purchaseToken: "tok-1")
            #expect(await client.tokenFetches == 2 && fixture.stub.stats.tokenFetches == 2)
        }
    }

    @Test func concurrentCallsWaitForTheSameFetch() async throws {
        try await HuaweiFixture.run { fixture in
            fixture.stub.register(.init(token: "tok-1", productID: "coins_100", kind: .consumable))
            let client = fixture.huawei().client(httpClient: fixture.http)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask { _ = try await client.verifyOrder(productID: "coins_100", purchaseToken: "tok-1") }
                }
                try await group.waitForAll()
            }
            #expect(fixture.stub.stats.tokenFetches == 1)
            #expect(fixture.stub.stats.calls["orders.verify"] == 8)
        }
    }

    @Test func aRefusedTokenIsReplacedOnce() async throws {
        try await HuaweiFixture.run { fixture in
            fixture.stub.register(.init(token: "tok-1", productID: "coins_100", kind: .consumable))
            let client = fixture.huawei().client(httpClient: fixture.http)
            _ = try await client.verifyOrder(productID: "coins_100", purchaseToken: "tok-1")
            fixture.stub.revokeAccessTokens()
            _ = try await client.verifyOrder(productID: "coins_100", purchaseToken: "tok-1")
            #expect(fixture.stub.stats.tokenFetches == 2 && fixture.stub.stats.refusedTokens == 1)
        }
    }

    @Test func aWrongSecretIsUnauthorizedAndNeverEchoed() async throws {
        try await HuaweiFixture.run { fixture in
            var settings = fixture.settings
            settings.clientSecret = "not-the-secret"
            let client = HuaweiStore(settings: settings).client(httpClient: fixture.http)
            let error = await #expect(throws: StoreCallError.self) {
                _ = try await client.verifyOrder(productID: "coins_100", purchaseToken: "tok-1")
            }
            #expect(error?.code == .unauthorized && error?.call == "token")
            #expect(error?.description.contains("not-the-secret") == false)
        }
    }

    @Test func aConsumableIsConfirmedOnceAndAgainIsDone() async throws {
        try await HuaweiFixture.run { fixture in
            fixture.stub.register(.init(token: "tok-1", productID: "coins_100", kind: .consumable))
            let huawei = fixture.huawei()
            let owed = HuaweiConfirmation(productID: "coins_100", purchaseToken: "tok-1").json

            #expect(await huawei.confirm(owed, context: fixture.context()) == .done)
            // Huawei's "already confirmed" (responseCode 9) after a lost answer is done too
            #expect(await huawei.confirm(owed, context: fixture.context()) == .done)
            #expect(fixture.stub.stats.confirmed == ["tok-1"])
            #expect(fixture.stub.purchase(token: "tok-1")?.confirmed == true)

            let unknown = HuaweiConfirmation(productID: "coins_100", purchaseToken: "nope").json
            #expect(await huawei.confirm(unknown, context: fixture.context()) == .failed(reason: "huawei_not_found_8"))
            #expect(
                await huawei.confirm("{}", context: fixture.context())
                    == .failed(reason: "huawei_confirmation_unreadable"))

            fixture.stub.configuration.withLock { $0.failFirst = fixture.stub.stats.calls.values.reduce(0, +) + 1 }
            #expect(await huawei.confirm(owed, context: fixture.context()) == .transient(reason: "huawei_unavailable"))
        }
    }
}
