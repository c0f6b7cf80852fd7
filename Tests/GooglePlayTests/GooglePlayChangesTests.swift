import Foundation
import HTTPClient
import PipelineCore
import StubStore
import Testing

@testable import GooglePlay

/// The Play Developer API as it is in 2026, against the stub over real HTTP: quantity-based
/// partial refunds, each line item's `latestSuccessfulOrderId` before the deprecated
/// `latestOrderId`, and suspended (on hold, paused) subscriptions that grant nothing.
@Suite struct GooglePlayChangesTests {
    static let package = GooglePlayFixture.package

    static func coins(quantity: Int, order: String = "GPA.5555-6666-7777-88888") -> ProductPurchaseV2 {
        ProductPurchaseV2(
            productLineItem: [
                .init(
                    productId: "coins_100", productOfferDetails: .init(quantity: quantity, refundableQuantity: quantity)
                )
            ], purchaseState: "PURCHASED", orderId: order, purchaseCompletionTime: "2026-11-25T10:00:00Z")
    }

    static func verify(_ fixture: GooglePlayFixture, _ evidence: Evidence) async throws -> VerificationOutcome {
        let verifier = GooglePlayVerifier(
            client: try fixture.client(), configuration: .init(subscriptionProductIDs: ["vip_monthly"]))
        return await verifier.verify(Submission(id: "r1", accountID: "a1", evidence: evidence, submittedAt: Date()))
    }

    // MARK: Quantity-based partial refunds

    @Test func partialRefunds_areListedOnlyToAReaderThatAsks_andTheClientAsks() async throws {
        try await GooglePlayFixture.run { fixture in
            // Given 5 units bought, 2 of them refunded, and another purchase refunded whole
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            fixture.play.register(token: "five", Self.coins(quantity: 5))
            fixture.play.void(token: "five", at: t0, quantity: 2)
            fixture.play.register(token: "one", Self.coins(quantity: 1, order: "GPA.1"))
            fixture.play.void(token: "one", at: t0 + 1)

            // When the client reads the list / Then both are there, the partial one with its units
            let page = try await fixture.client().voidedPurchases(packageName: Self.package, start: t0, end: t0 + 60)
            #expect(page.voidedPurchases.map(\.purchaseToken) == ["five", "one"])
            #expect(page.voidedPurchases.map(\.voidedQuantity) == [2, nil])
            #expect(page.voidedPurchases.map(\.isPartial) == [true, false])

            // And a reader that does not ask sees only the whole refund, as Google answers
            let account = try GoogleServiceAccount(json: fixture.play.serviceAccountJSON(baseURL: fixture.baseURL))
            let token = try await GoogleAccessTokens(account: account, http: fixture.http, now: { Date() }).token()
            let path = "/google/androidpublisher/v3/applications/\(Self.package)/purchases/voidedpurchases"
            let query =
                "?startTime=\(Int64(t0.timeIntervalSince1970 * 1000))&endTime=\(Int64((t0 + 60).timeIntervalSince1970 * 1000))"
            let plain = try await fixture.http.execute(
                HTTPRequest(
                    method: .get, url: fixture.baseURL + path + query,
                    headers: [(name: "Authorization", value: "Bearer \(token.value)")], timeout: .seconds(10)))
            let unasked = try JSONDecoder().decode(VoidedPurchasesPage.self, from: plain.bodyData)
            #expect(unasked.voidedPurchases.map(\.purchaseToken) == ["one"])

            // And the partly refunded purchase stays bought, with 3 units refundable
            let five = try #require(fixture.play.product(token: "five"))
            #expect(five.isPurchased && five.productLineItem.first?.productOfferDetails?.refundableQuantity == 3)
        }
    }

    @Test func aPartialRefundNotice_carriesTheUnitsRefunded_readFromThePurchase() async throws {
        try await GooglePlayFixture.run { fixture in
            // Given 5 units bought and 2 refunded
            fixture.play.register(token: "five", Self.coins(quantity: 5))
            fixture.play.void(token: "five", at: Date(), quantity: 2)

            // When Google's voided notice with refundType 2 (partial) arrives
            let notice = GoogleNotice(
                messageID: "m-1", packageName: Self.package, eventTime: Date(timeIntervalSince1970: 1_800_000_000),
                kind: .voidedPurchase, purchaseToken: "five", orderID: "GPA.5555-6666-7777-88888", refundType: 2)
            let outcome = try await Self.verify(fixture, .googleNotice(notice))

            // Then the refund names its product and 2 of the 5 units (the engine takes back 2/5)
            guard case .notification(let notification) = outcome, let refund = notification.transaction else {
                Issue.record("expected a notification with a transaction, got \(outcome)")
                return
            }
            #expect(notification.type == .refund)
            #expect(refund.transactionID == "GPA.5555-6666-7777-88888" && refund.originalTransactionID == "five")
            #expect(refund.productID == "coins_100" && refund.quantity == 5 && refund.refundedQuantity == 2)

            // And a full refund's notice stays as it was: no read, no units
            let full = GoogleNotice(
                messageID: "m-2", packageName: Self.package, kind: .voidedPurchase, purchaseToken: "five",
                orderID: "GPA.5555-6666-7777-88888", refundType: 1)
            guard case .notification(let whole) = try await Self.verify(fixture, .googleNotice(full)) else {
                Issue.record("expected a notification")
                return
            }
            #expect(whole.transaction?.refundedQuantity == nil && whole.transaction?.productID == "")
            #expect(fixture.play.stats.calls["productsv2.get"] == 1)
        }
    }

    @Test func refundedUnits_areTheQuantityLessWhatIsStillRefundable() {
        func units(_ quantity: Int?, _ refundable: Int?) -> Int? {
            let purchase = ProductPurchaseV2(
                productLineItem: [
                    .init(
                        productId: "c", productOfferDetails: .init(quantity: quantity, refundableQuantity: refundable))
                ], purchaseState: "PURCHASED", orderId: "GPA.1")
            return GooglePlayVerifier.refundedUnits(purchase, productID: nil)?.refunded
        }
        #expect(units(5, 3) == 2)
        #expect(units(5, 0) == 5)
        // Google has not caught up: no units refunded yet, so no share to take
        #expect(units(5, 5) == nil)
        #expect(units(5, nil) == nil)
        #expect(units(3, 7) == nil)
    }

    // MARK: Subscriptions

    static func subscription(
        state: String = "SUBSCRIPTION_STATE_ACTIVE", latest: String?, item: String?
    ) -> SubscriptionPurchaseV2 {
        SubscriptionPurchaseV2(
            subscriptionState: state, latestOrderId: latest,
            lineItems: [
                .init(productId: "vip_monthly", expiryTime: "2026-12-25T10:00:00Z", latestSuccessfulOrderId: item)
            ]
        )
    }

    struct Orders: Sendable, CustomTestStringConvertible {
        var latest: String?
        var item: String?
        var credited: String
        var testDescription: String { "latestOrderId \(latest ?? "-"), item's \(item ?? "-"): \(credited)" }
    }

    static let orders: [Orders] = [
        Orders(latest: "GPA.old..1", item: "GPA.new..2", credited: "GPA.new..2"),
        Orders(latest: nil, item: "GPA.new..2", credited: "GPA.new..2"),
        Orders(latest: "GPA.old..1", item: nil, credited: "GPA.old..1"),
    ]

    @Test(arguments: orders)
    func theLineItemsLatestSuccessfulOrder_isTheTransaction_theDeprecatedOneOnlyWithout(_ row: Orders)
        async throws
    {
        try await GooglePlayFixture.run { fixture in
            fixture.play.register(token: "sub", Self.subscription(latest: row.latest, item: row.item))
            let outcome = try await Self.verify(
                fixture,
                .googlePlay(
                    GooglePlayPurchase(packageName: Self.package, productID: "vip_monthly", purchaseToken: "sub")))
            guard case .valid(_, let transactions) = outcome else {
                Issue.record("expected valid, got \(outcome)")
                return
            }
            #expect(transactions.map(\.transactionID) == [row.credited])
        }
    }

    @Test(arguments: ["SUBSCRIPTION_STATE_ON_HOLD", "SUBSCRIPTION_STATE_PAUSED"])
    func aSuspendedSubscription_grantsNothing(_ state: String) async throws {
        try await GooglePlayFixture.run { fixture in
            // Given a subscription on hold or paused
            fixture.play.register(token: "sub", Self.subscription(state: state, latest: "GPA.1", item: "GPA.1"))

            // When its receipt is verified / Then it is rejected, so nothing is credited
            let receipt = try await Self.verify(
                fixture,
                .googlePlay(
                    GooglePlayPurchase(packageName: Self.package, productID: "vip_monthly", purchaseToken: "sub")))
            #expect(receipt == .rejected(reason: "google_play_suspended"))

            // And its notice (SUBSCRIPTION_ON_HOLD, SUBSCRIPTION_PAUSED) is recorded with no transaction
            let type = state.hasSuffix("ON_HOLD") ? 5 : 10
            let notice = GoogleNotice(
                messageID: "m-\(type)", packageName: Self.package, kind: .subscription, notificationType: type,
                purchaseToken: "sub", productID: "vip_monthly")
            guard case .notification(let notification) = try await Self.verify(fixture, .googleNotice(notice)) else {
                Issue.record("expected a recorded notification")
                return
            }
            #expect(notification.transaction == nil && notification.type == nil)
        }
    }

    @Test func aSubscriptionNotice_withoutTheDeprecatedSubscriptionId_readsItsProductFromTheLineItem() async throws {
        try await GooglePlayFixture.run { fixture in
            // Given a renewed subscription, and its notice without subscriptionId (deprecated, no replacement)
            fixture.play.register(token: "sub", Self.subscription(latest: nil, item: "GPA.9..1"))
            let notice = GoogleNotice(
                messageID: "m-2", packageName: Self.package, kind: .subscription, notificationType: 2,
                purchaseToken: "sub")

            // Then the renewal is the line item's product and its latest successful order
            guard case .notification(let notification) = try await Self.verify(fixture, .googleNotice(notice)) else {
                Issue.record("expected a notification")
                return
            }
            #expect(notification.type == .didRenew)
            #expect(notification.transaction?.productID == "vip_monthly")
            #expect(notification.transaction?.transactionID == "GPA.9..1")
        }
    }
}
