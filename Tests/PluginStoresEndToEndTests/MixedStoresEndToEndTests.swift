import Database
import Foundation
import GooglePlay
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Every store at once: one player buying through Apple, Google Play, Huawei AppGallery and
/// the Stripe web shop, in one pipeline with the plug-in stores configured beside the
/// built-in ones; on the real broker, both backends.
@Suite struct MixedStoresEndToEndTests {
    static let coins = "com.example.coins100"
    static let bigCoins = "com.example.coins500"

    @Test(arguments: TestBackend.allCases) func fourStoresCreditOneLedgerAndTheBooksBalance(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            let account = "everywhere"
            // Given a purchase in each store: Apple (a receipt through the stub's verifyReceipt),
            let apple = pipeline.receipt(transactions: [(id: "mixed-apple-100", product: Self.coins)])
            let (appleStatus, appleReceipt) = try await pipeline.submit(account: account, receiptData: apple)
            #expect(appleStatus == 202)
            var receipts = [try #require(appleReceipt)]

            // Google Play,
            pipeline.stub.googlePlay.register(
                token: "mixed-play-token",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: Self.coins, productOfferDetails: .init(quantity: 1))],
                    purchaseState: "PURCHASED", orderId: "GPA.1234-5678-9012-34567"))
            let (_, play) = try await pipeline.submitGooglePlay(
                account: account, token: "mixed-play-token", product: Self.coins)
            receipts.append(try #require(play["receipt_id"] as? String))

            // Huawei,
            pipeline.stub.huawei.register(
                StubHuawei.Purchase(
                    token: "mixed-hw-token", productID: Self.bigCoins, kind: .consumable, orderID: "HW.MIXED.0001"))
            let (huaweiStatus, huawei) = try await pipeline.submitHuawei(
                account: account, token: "mixed-hw-token", product: Self.bigCoins)
            #expect(huaweiStatus == 202, "\(huawei)")
            receipts.append(try #require(huawei["receipt_id"] as? String))

            // and the web shop (Stripe tells the pipeline; the backend posts nothing)
            let payment = pipeline.stub.stripe.createSession(account: account, lookupKey: Self.coins, quantity: 2)
            let (stripeStatus, stripe) = try await pipeline.deliverStripe(
                "checkout.session.completed", object: payment.session, eventID: "evt_e2e_mixed")
            #expect(stripeStatus == 200, "\(stripe)")
            let notification = try #require(stripe["notification_id"] as? String)

            // Then every one is credited, to the one account
            for receipt in receipts {
                let final = try await pipeline.finalStatus(receipt)
                #expect(final["status"] as? String == "credited", "\(final)")
            }
            let stripeDetails = try await pipeline.settledNotification(notification)
            #expect(stripeDetails?.status == .applied, "\(String(describing: stripeDetails))")
            #expect(try await pipeline.balance(account) == 100 + 100 + 500 + 200)
            let ledger = try #require(try await LedgerRepository(pipeline.database).account(id: account)).ledger
            #expect(
                Set(ledger.compactMap(\.transactionID)) == [
                    "mixed-apple-100", "GPA.1234-5678-9012-34567", "huawei:HW.MIXED.0001",
                    "stripe:\(payment.paymentIntent)",
                ], "\(ledger)")
            #expect(ledger.allSatisfy { $0.kind == .purchase && $0.amount > 0 })

            // And each store heard what it is owed: Google consumed, Huawei confirmed
            let confirmations = ConfirmationRepository(pipeline.database)
            #expect(
                await eventually {
                    (try? await confirmations.confirmation(store: "huawei", transactionID: "huawei:HW.MIXED.0001"))??
                        .status == .done
                })
            #expect(pipeline.stub.huawei.stats.confirmed == ["mixed-hw-token"])
            #expect(await pipeline.googleConfirmation("GPA.1234-5678-9012-34567", becomes: .done))
            #expect(pipeline.stub.googlePlay.stats.consumed == ["mixed-play-token"])

            // And the books balance
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }
}
