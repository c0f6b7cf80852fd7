import Database
import Foundation
import Fulfiller
import GooglePlay
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Google Play purchases through the same pipeline and ledger as Apple's: posted as
/// `google_play`, read back from the (stub) Developer API by a validator, credited once by
/// the fulfiller; on the real broker, both backends.
@Suite struct GooglePlayEndToEndTests {
    static let product = "com.example.coins100"

    func coins(order: String, state: String = "PURCHASED") -> ProductPurchaseV2 {
        ProductPurchaseV2(
            productLineItem: [.init(productId: Self.product, productOfferDetails: .init(quantity: 1))],
            purchaseState: state, orderId: order, purchaseCompletionTime: "2026-11-25T10:00:00Z")
    }

    @Test(arguments: TestBackend.allCases) func aPlayPurchaseIsCreditedOnceEvenFromTwoAccounts(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a purchase Google knows
            pipeline.stub.googlePlay.register(token: "play-token-1", coins(order: "GPA.1111-2222-3333-00001"))

            // When the backend posts it, twice, and another account posts the same token
            let (status, first) = try await pipeline.submitGooglePlay(
                account: "android-1", token: "play-token-1", product: Self.product)
            #expect(status == 202)
            let receipt = try #require(first["receipt_id"] as? String)
            let (again, resent) = try await pipeline.submitGooglePlay(
                account: "android-1", token: "play-token-1", product: Self.product)
            #expect(again == 200 && resent["receipt_id"] as? String == receipt)
            #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")
            let (_, other) = try await pipeline.submitGooglePlay(
                account: "android-2", token: "play-token-1", product: Self.product)
            let otherReceipt = try #require(other["receipt_id"] as? String)
            let otherFinal = try await pipeline.finalStatus(otherReceipt)
            #expect(
                otherFinal["status"] as? String == "rejected" && otherFinal["reason"] as? String == "already_credited")
            #expect(otherFinal["kind"] as? String == "google_play")

            // Then it is credited once, to the first account, under Google's order id
            #expect(try await pipeline.balance("android-1") == 100)
            #expect(try await pipeline.balance("android-2") == 0)
            let ledger = try #require(try await LedgerRepository(pipeline.database).account(id: "android-1")).ledger
            #expect(ledger.map(\.transactionID) == ["GPA.1111-2222-3333-00001"])
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
            #expect(pipeline.stub.googlePlay.stats.calls["productsv2.get"] == 2)

            // And once credited it is consumed, once, so that the player can buy it again
            // (The stub counts the call when it answers; the row is marked done once the answer is read.)
            #expect(await pipeline.googleConfirmation("GPA.1111-2222-3333-00001", becomes: .done))
            #expect(pipeline.stub.googlePlay.stats.consumed == ["play-token-1"])
            let owed = try await pipeline.googleConfirmation("GPA.1111-2222-3333-00001")
            #expect(owed?.row.status == .done && owed?.action == .consume && owed?.row.receiptID == receipt)
        }
    }

    @Test(arguments: TestBackend.allCases) func anAcknowledgementThatFailsIsTriedAgainUntilGoogleTakesIt(
        _ backend: TestBackend
    ) async throws {
        let unlock = Product(productID: "com.example.noads", kind: .nonConsumable, entitlement: "no_ads")
        let catalog = Catalog(products: PipelineHarness.catalog.products + [unlock])
        try await PipelineHarness.run(backend, catalog: catalog) { pipeline in
            // Given Google failing the first two acknowledgements, and an unlock (not consumable)
            pipeline.stub.googlePlay.configuration.withLock { $0.acknowledgeFailFirst = 2 }
            pipeline.stub.googlePlay.register(
                token: "play-noads",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: "com.example.noads")], purchaseState: "PURCHASED",
                    orderId: "GPA.1111-2222-3333-00009"))
            let (_, answer) = try await pipeline.submitGooglePlay(
                account: "android-4", token: "play-noads", product: "com.example.noads")
            let receipt = try #require(answer["receipt_id"] as? String)
            #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")

            // Then it is acknowledged (not consumed) on the third attempt
            #expect(await pipeline.googleConfirmation("GPA.1111-2222-3333-00009", becomes: .done))
            #expect(pipeline.stub.googlePlay.stats.acknowledged == ["play-noads"])
            let owed = try await pipeline.googleConfirmation("GPA.1111-2222-3333-00009")
            #expect(owed?.row.status == .done && owed?.action == .acknowledge && owed?.row.attempts == 3)
            #expect(pipeline.stub.googlePlay.stats.consumed.isEmpty)
            #expect(try await ConfirmationRepository(pipeline.database).overdue(olderThan: 0, now: Date()).isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func aRefundInTheVoidedListIsDebitedOnce(_ backend: TestBackend) async throws
    {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a credited purchase, then refunded by Google
            pipeline.stub.googlePlay.register(token: "play-refunded", coins(order: "GPA.1111-2222-3333-00005"))
            let (_, answer) = try await pipeline.submitGooglePlay(
                account: "android-5", token: "play-refunded", product: Self.product)
            #expect(
                try await pipeline.finalStatus(try #require(answer["receipt_id"] as? String))["status"] as? String
                    == "credited")
            pipeline.stub.googlePlay.void(token: "play-refunded", at: Date().addingTimeInterval(-1))

            // When the voided list is read, twice
            let poller = try pipeline.voidedPoller()
            let first = try await poller.poll()
            let second = try await poller.poll()

            // Then it is debited once, with a purchase.refunded webhook, and the books balance
            #expect(first.debited == 1 && second.debited == 0 && second.alreadyDebited == 1, "\(first) \(second)")
            #expect(try await pipeline.balance("android-5") == 0)
            let kinds = try #require(try await LedgerRepository(pipeline.database).account(id: "android-5")).ledger.map(
                \.kind)
            #expect(kinds == [.refund, .purchase])
            let refunded = try await pipeline.receiver.waitFor(count: 1, timeout: .seconds(30)) {
                $0.bodyString.contains("\"type\":\"purchase.refunded\"")
            }
            #expect(refunded.first?.bodyString.contains("GPA.1111-2222-3333-00005") == true)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func refundsOfTwoThenOneOfFiveUnitsTakeBackTwoThenOne(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given five packs of 100 coins bought at once, credited
            pipeline.stub.googlePlay.register(
                token: "play-five",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: Self.product, productOfferDetails: .init(quantity: 5))],
                    purchaseState: "PURCHASED", orderId: "GPA.1111-2222-3333-00055",
                    purchaseCompletionTime: "2026-11-25T10:00:00Z"))
            let (_, answer) = try await pipeline.submitGooglePlay(
                account: "android-55", token: "play-five", product: Self.product)
            #expect(
                try await pipeline.finalStatus(try #require(answer["receipt_id"] as? String))["status"] as? String
                    == "credited")
            #expect(try await pipeline.balance("android-55") == 500)

            // When Google refunds two of the five units and the voided list is read, twice
            pipeline.stub.googlePlay.void(token: "play-five", at: Date().addingTimeInterval(-2), quantity: 2)
            let poller = try pipeline.voidedPoller()
            let first = try await poller.poll()
            let second = try await poller.poll()

            // Then 200 coins are taken back, once
            #expect(first.partial == 1 && first.debited == 1 && second.alreadyDebited == 1, "\(first) \(second)")
            #expect(try await pipeline.balance("android-55") == 300)

            // When it refunds one unit more (three of five voided) and the list is read, twice
            pipeline.stub.googlePlay.void(token: "play-five", at: Date().addingTimeInterval(-1), quantity: 1)
            let third = try await poller.poll()
            let fourth = try await poller.poll()

            // Then 100 more go, once: the first entry, listed again, takes nothing more
            #expect(third.partial == 2 && third.debited == 1 && third.alreadyDebited == 1, "\(third)")
            #expect(fourth.debited == 0 && fourth.alreadyDebited == 2, "\(fourth)")
            #expect(try await pipeline.balance("android-55") == 200)
            let ledger = try #require(try await LedgerRepository(pipeline.database).account(id: "android-55")).ledger
            #expect(ledger.map(\.amount) == [-100, -200, 500])
            #expect(try await LedgerRepository(pipeline.database).audit() == [])

            // And the revenue ledger holds what Google's order says was paid (five units at
            // $0.99: Money units "4", nanos 950000000), and two fifths, then one fifth, given back
            let revenue = try await RevenueRepository(pipeline.database).page(
                after: 0, since: Date(timeIntervalSince1970: 0), until: Date(timeIntervalSince1970: 4_102_444_800))
            #expect(revenue.map(\.entry.kind) == [.purchase, .refund, .refund])
            #expect(
                revenue.map(\.entry.gross) == [495, -198, -99] && revenue.map(\.entry.proceeds) == [346, -138, -69])
            #expect(
                revenue.allSatisfy { $0.entry.store == "google" && $0.entry.currency == "USD" && !$0.entry.estimated })
            #expect(revenue.map(\.entry.country) == ["US", "US", "US"] && revenue.map(\.entry.step) == [0, 1, 2])
            // with the order's tax ($0.825, a sixth: 20 % VAT included), each refund its share
            #expect(revenue.map(\.entry.tax) == [83, -33, -16])
        }
    }

    @Test(arguments: TestBackend.allCases) func applePlayAndARefundOnOneAccountLeaveTheBooksBalanced(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given one player buying on both stores: an Apple receipt and two Play purchases
            let apple = pipeline.receipt(transactions: [(id: "mixed-apple-1", product: Self.product)])
            let (_, appleID) = try await pipeline.submit(account: "both-stores", receiptData: apple)
            pipeline.stub.googlePlay.register(token: "mixed-play-1", coins(order: "GPA.1111-2222-3333-00011"))
            pipeline.stub.googlePlay.register(token: "mixed-play-2", coins(order: "GPA.1111-2222-3333-00012"))
            var receipts = [try #require(appleID)]
            for token in ["mixed-play-1", "mixed-play-2"] {
                let (_, answer) = try await pipeline.submitGooglePlay(
                    account: "both-stores", token: token, product: Self.product)
                receipts.append(try #require(answer["receipt_id"] as? String))
            }
            for receipt in receipts {
                #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")
            }
            // And Google refunding one of the Play purchases
            pipeline.stub.googlePlay.void(token: "mixed-play-2", at: Date().addingTimeInterval(-1))
            let poller = try pipeline.voidedPoller()
            #expect(try await poller.poll().debited == 1)

            // Then one ledger holds all three credits and the refund, and the books balance
            #expect(try await pipeline.balance("both-stores") == 200)
            #expect(
                try #require(try await LedgerRepository(pipeline.database).account(id: "both-stores")).ledger.count == 4
            )
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func cancelledUnknownAndMismatchedPurchasesAreRejected(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            pipeline.stub.googlePlay.register(
                token: "play-cancelled", coins(order: "GPA.1111-2222-3333-00002", state: "CANCELLED"))
            pipeline.stub.googlePlay.register(token: "play-other", coins(order: "GPA.1111-2222-3333-00003"))
            for (token, product, reason) in [
                ("play-cancelled", Self.product, "google_play_cancelled"),
                ("play-unknown", Self.product, "google_play_token_not_found"),
                ("play-other", "com.example.gems10", "google_play_product_mismatch"),
            ] {
                let (_, answer) = try await pipeline.submitGooglePlay(
                    account: "android-3", token: token, product: product)
                let receipt = try #require(answer["receipt_id"] as? String)
                let final = try await pipeline.finalStatus(receipt)
                #expect(final["status"] as? String == "rejected", "\(token)")
                #expect(final["reason"] as? String == reason, "\(token)")
            }
            #expect(try await pipeline.balance("android-3") == 0)
        }
    }

    @Test func badGooglePlayFieldsAreRefusedByNameAndStoreNothing() async throws {
        try await PipelineHarness.run { pipeline in
            let good: [String: Any] = [
                "package_name": "com.example.game", "product_id": "coins_100", "purchase_token": "tok",
            ]
            func with(_ change: [String: Any?]) -> [String: Any] {
                var fields = good
                for (key, value) in change { fields[key] = value }
                return fields
            }
            let cases: [([String: Any], String, String)] = [
                (["google_play": "tok"], "invalid_google_play", "google_play"),
                (["google_play": with(["package_name": "game"])], "invalid_google_play", "google_play.package_name"),
                (["google_play": with(["package_name": nil])], "invalid_google_play", "google_play.package_name"),
                (["google_play": with(["product_id": "Coins 100"])], "invalid_google_play", "google_play.product_id"),
                (["google_play": with(["purchase_token": ""])], "invalid_google_play", "google_play.purchase_token"),
                (["google_play": with(["purchase_token": 42])], "invalid_google_play", "google_play.purchase_token"),
                (["google_play": with(["extra": "x"])], "unknown_field", "google_play.extra"),
                (["google_play": good, "receipt_data": "AAAA"], "ambiguous_receipt", "google_play"),
            ]
            for (fields, code, field) in cases {
                var body: [String: Any] = ["account_id": "android-bad"]
                body.merge(fields) { $1 }
                let (status, answer) = try await pipeline.post("/v1/receipts", body)
                let error = answer["error"] as? [String: Any]
                #expect(status == 400, "\(fields)")
                #expect(
                    error?["code"] as? String == code && error?["field"] as? String == field, "\(fields): \(answer)")
            }
            #expect(try await pipeline.database.snapshot { try await $0.rows("SELECT id FROM receipts") }.isEmpty)
        }
    }
}
