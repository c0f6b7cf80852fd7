import Foundation
import Huawei
import PipelineCore
import StorePlugins
import StubStore
import Testing

/// The verifier's outcomes, each read from the stub over HTTP: what credits, what is
/// rejected and why, and what retries.
@Suite struct HuaweiVerifierTests {
    static let bought = Date(timeIntervalSince1970: 1_790_000_000)

    func verify(_ fixture: HuaweiFixture, _ member: [String: Any]) async throws -> VerificationOutcome {
        let huawei = fixture.huawei()
        let evidence = try huawei.receiptEvidence(member)
        return try await huawei.verifier(fixture.context()).verify(.huawei(evidence))
    }

    @Test func aConsumableIsValidWithItsConfirmation() async throws {
        try await HuaweiFixture.run { fixture in
            fixture.stub.register(.init(token: "tok-1", productID: "coins_100", kind: .consumable, orderID: "o-1"))
            let outcome = try await verify(
                fixture, ["product_id": "coins_100", "purchase_token": "tok-1", "type": "consumable"])
            let expected = VerifiedTransaction(
                transactionID: "huawei:o-1", originalTransactionID: "huawei:tok-1", productID: "coins_100",
                purchaseDate: Self.bought, productType: "Consumable",
                confirmation: #"{"product_id":"coins_100","purchase_token":"tok-1","type":"consume"}"#,
                // The stub signs EUR 1.99 in Germany, as Huawei's `price` (hundredths) says it.
                priceMicros: 1_990_000, currency: "EUR", country: "DE")
            #expect(outcome == .valid(environment: "Production", transactions: [expected]))
        }
    }

    @Test func aSubscriptionIsValidUntilItsExpiry() async throws {
        try await HuaweiFixture.run { fixture in
            let expiry = Date(timeIntervalSince1970: 1_792_592_000)
            fixture.stub.register(
                .init(
                    token: "sub-1", productID: "vip", kind: .subscription, orderID: "o-9", subscriptionID: "s-1",
                    expirationDate: expiry, sandbox: true))
            let outcome = try await verify(
                fixture,
                ["product_id": "vip", "purchase_token": "sub-1", "type": "subscription", "subscription_id": "s-1"])
            let expected = VerifiedTransaction(
                transactionID: "huawei:o-9", originalTransactionID: "huawei:s-1", productID: "vip",
                purchaseDate: Self.bought, expiresDate: expiry, productType: "Auto-Renewable Subscription",
                priceMicros: 1_990_000, currency: "EUR", country: "DE")
            #expect(outcome == .valid(environment: "Sandbox", transactions: [expected]))
            #expect(fixture.stub.stats.calls == ["subscriptions.get": 1])
        }
    }

    @Test(arguments: [
        // what the stub holds, what is posted, the outcome
        ("refunded", "huawei_refunded"), ("cancelled", "huawei_cancelled"), ("forged", "huawei_bad_signature"),
        ("unknown token", "huawei_token_not_found"), ("another product", "huawei_token_not_found"),
        ("wrong subscription", "huawei_token_not_found"),
    ])
    func aPurchaseThatDoesNotHoldIsRejected(_ case: String, _ reason: String) async throws {
        try await HuaweiFixture.run { fixture in
            let stub = fixture.stub
            stub.register(.init(token: "tok-1", productID: "coins_100", kind: .consumable))
            stub.register(.init(token: "sub-1", productID: "vip", kind: .subscription, subscriptionID: "s-1"))
            var member: [String: Any] = ["product_id": "coins_100", "purchase_token": "tok-1", "type": "consumable"]
            switch `case` {
            case "refunded": stub.refund(token: "tok-1", at: Self.bought)
            case "cancelled":
                var purchase = try #require(stub.purchase(token: "tok-1"))
                purchase.purchaseState = 1
                stub.register(purchase)
            case "forged": stub.configuration.withLock { $0.forgeSignatures = true }
            case "unknown token": member["purchase_token"] = "tok-2"
            case "another product": member["product_id"] = "gems_500"
            default:
                member = [
                    "product_id": "vip", "purchase_token": "sub-1", "type": "subscription", "subscription_id": "s-2",
                ]
            }
            #expect(try await verify(fixture, member) == .rejected(reason: reason))
        }
    }

    @Test func aPendingPaymentRetries() async throws {
        try await HuaweiFixture.run { fixture in
            fixture.stub.register(.init(token: "tok-1", productID: "coins_100", kind: .consumable, purchaseState: 3))
            let outcome = try await verify(
                fixture, ["product_id": "coins_100", "purchase_token": "tok-1", "type": "consumable"])
            #expect(outcome == .transient(reason: "huawei_pending"))
        }
    }

    @Test func huaweisTroubleRetries() async throws {
        try await HuaweiFixture.run { fixture in
            fixture.stub.register(.init(token: "tok-1", productID: "coins_100", kind: .consumable))
            fixture.stub.configuration.withLock {
                $0.failFirst = 1
                $0.rateLimitFirst = 1
                $0.retryAfterSeconds = 7
                $0.errorCodeFirst = 1
            }
            let member: [String: Any] = ["product_id": "coins_100", "purchase_token": "tok-1", "type": "consumable"]
            // 503, then 429 with Retry-After, then responseCode -1, then the answer
            #expect(try await verify(fixture, member) == .transient(reason: "huawei_unavailable"))
            #expect(
                try await verify(fixture, member) == .transient(reason: "huawei_rate_limited", retryAfter: .seconds(7)))
            #expect(try await verify(fixture, member) == .transient(reason: "huawei_unavailable"))
            guard case .valid = try await verify(fixture, member) else {
                Issue.record("the fourth call should verify")
                return
            }
        }
    }

    @Test func unreachableHuaweiRetries() async throws {
        try await HuaweiFixture.run { fixture in
            var settings = fixture.settings
            settings.oauthURL = "http://127.0.0.1:1/oauth2/v3/token"
            let huawei = HuaweiStore(settings: settings)
            let evidence = try huawei.receiptEvidence(
                ["product_id": "coins_100", "purchase_token": "tok-1", "type": "consumable"])
            let outcome = try await huawei.verifier(fixture.context()).verify(.huawei(evidence))
            #expect(outcome == .transient(reason: "huawei_unavailable"))
        }
    }
}
