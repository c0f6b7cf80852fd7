import Foundation
import GooglePlay
import Logging
import PipelineCore
import StorePlugins
import Testing

/// What a credit owes Google, paid through the plug-in's `confirm`, as the fulfiller's
/// acknowledger pays it.
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
}
