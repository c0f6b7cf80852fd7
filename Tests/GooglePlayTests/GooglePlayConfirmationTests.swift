import Foundation
import GooglePlay
import Logging
import PipelineCore
import StorePlugins
import Testing

/// What a credit owes Google: put on the transaction by the verifier unless Google has it
/// already, and paid through the plug-in's `confirm`, as the fulfiller's `StoreConfirmer` pays it.
@Suite struct GooglePlayConfirmationTests {
    static let package = GooglePlayFixture.package

    static func owed(_ action: GooglePlayConfirmation.Action, token: String) -> GooglePlayConfirmation {
        GooglePlayConfirmation(
            action: action,
            purchase: GooglePlayPurchase(packageName: package, productID: "coins_100", purchaseToken: token))
    }

    @Test func aConsumableIsConsumed_andAConfirmationReadsBackFromItsJSON() async throws {
        try await GooglePlayFixture.run { fixture in
            fixture.play.register(token: "coin-1", GooglePlayChangesTests.coins(quantity: 1))
            let owed = Self.owed(.consume, token: "coin-1")
            #expect(GooglePlayConfirmation(json: owed.json) == owed)

            let outcome = await GooglePlayStore.confirm(owed, client: try fixture.client())
            #expect(outcome == .done)
            #expect(fixture.play.stats.consumed == ["coin-1"])
        }
    }

    @Test func googlesTroubleIsTriedAgain_andATokenGoogleDoesNotKnowIsGivenUp() async throws {
        try await GooglePlayFixture.run { fixture in
            fixture.play.register(token: "coin-2", GooglePlayChangesTests.coins(quantity: 1))
            fixture.play.configuration.withLock { $0.acknowledgeFailFirst = 1 }
            let owed = Self.owed(.acknowledge, token: "coin-2")
            guard case .transient = await GooglePlayStore.confirm(owed, client: try fixture.client()) else {
                Issue.record("a failing acknowledgement was not tried again")
                return
            }
            #expect(await GooglePlayStore.confirm(owed, client: try fixture.client()) == .done)
            #expect(fixture.play.stats.acknowledged == ["coin-2"])

            let unknown = await GooglePlayStore.confirm(
                Self.owed(.acknowledge, token: "never-issued"), client: try fixture.client())
            guard case .failed(let reason) = unknown else {
                Issue.record("an unknown token was not given up: \(unknown)")
                return
            }
            #expect(reason.contains("not_found"), "\(reason)")
        }
    }

    @Test func whatDoesNotRead_isGivenUp_andWithoutAServiceAccountItStaysOwed() async throws {
        try await GooglePlayFixture.run { fixture in
            let context = StoreContext(
                httpClient: fixture.http, budgets: LocalCallBudgetKeeper(), catalog: Catalog(products: []),
                logger: Logger(label: "test"))
            let off = GooglePlayStore(setup: nil)
            #expect(await off.confirm("{", context: context) == .failed(reason: "google_play_confirmation_unreadable"))
            #expect(
                await off.confirm(Self.owed(.consume, token: "t").json, context: context)
                    == .transient(reason: GooglePlayStore.notConfigured))
        }
    }

    // MARK: What a verified purchase owes

    /// The confirmation on the transaction `evidence` verifies as, by a verifier that sells
    /// `coins_100` as a consumable and `vip_monthly` as a subscription.
    static func owed(_ fixture: GooglePlayFixture, token: String, product: String) async throws
        -> GooglePlayConfirmation?
    {
        let verifier = GooglePlayVerifier(
            client: try fixture.client(),
            configuration: .init(subscriptionProductIDs: ["vip_monthly"], consumableProductIDs: ["coins_100"]))
        let evidence = Evidence.googlePlay(
            GooglePlayPurchase(packageName: package, productID: product, purchaseToken: token))
        let outcome = await verifier.verify(
            Submission(id: "r1", accountID: "a1", evidence: evidence, submittedAt: Date()))
        guard case .valid(_, let transactions) = outcome, transactions.count == 1 else {
            Issue.record("expected one valid transaction, got \(outcome)")
            return nil
        }
        return transactions[0].confirmation.flatMap(GooglePlayConfirmation.init(json:))
    }

    @Test func aVerifiedPurchaseOwesItsConsumptionOrAcknowledgement_unlessGoogleHasItAlready() async throws {
        try await GooglePlayFixture.run { fixture in
            // Given a consumable, an unlock and a subscription, none acknowledged yet
            fixture.play.register(token: "coin", GooglePlayChangesTests.coins(quantity: 1))
            fixture.play.register(
                token: "unlock",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: "no_ads")], purchaseState: "PURCHASED", orderId: "GPA.2"))
            fixture.play.register(
                token: "sub", GooglePlayChangesTests.subscription(latest: "GPA.3", item: "GPA.3"))

            // Then each owes what the catalog's kind asks for
            #expect(
                try await Self.owed(fixture, token: "coin", product: "coins_100") == Self.owed(.consume, token: "coin"))
            let unlock = try await Self.owed(fixture, token: "unlock", product: "no_ads")
            #expect(unlock?.action == .acknowledge && unlock?.purchase.productID == "no_ads")
            let sub = try await Self.owed(fixture, token: "sub", product: "vip_monthly")
            #expect(sub?.action == .acknowledgeSubscription && sub?.purchase.purchaseToken == "sub")

            // And once Google has it (consumed, acknowledged), a purchase verified again owes nothing
            let client = try fixture.client()
            #expect(await GooglePlayStore.confirm(Self.owed(.consume, token: "coin"), client: client) == .done)
            try await client.acknowledgeProduct(packageName: Self.package, productID: "no_ads", token: "unlock")
            try await client.acknowledgeSubscription(
                packageName: Self.package, subscriptionID: "vip_monthly", token: "sub")
            #expect(try await Self.owed(fixture, token: "coin", product: "coins_100") == nil)
            #expect(try await Self.owed(fixture, token: "unlock", product: "no_ads") == nil)
            #expect(try await Self.owed(fixture, token: "sub", product: "vip_monthly") == nil)
        }
    }

    @Test func aPurchaseGoogleAlreadyConsumedCountsAsDone_andIsNotConsumedTwice() async throws {
        try await GooglePlayFixture.run { fixture in
            // Given a consumable consumed already (an attempt whose answer was lost, the app's own call)
            fixture.play.register(token: "coin-3", GooglePlayChangesTests.coins(quantity: 1))
            let client = try fixture.client()
            try await client.consumeProduct(packageName: Self.package, productID: "coins_100", token: "coin-3")

            // When its consumption is paid again / Then Google refuses it, and it counts as done
            #expect(await GooglePlayStore.confirm(Self.owed(.consume, token: "coin-3"), client: client) == .done)
            #expect(fixture.play.stats.consumed == ["coin-3"])
        }
    }
}
