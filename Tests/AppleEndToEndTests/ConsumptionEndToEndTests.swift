import AppleStore
import Database
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Apple's CONSUMPTION_REQUEST answered with Send Consumption Information, from the ledger,
/// only for a player whose consent the backend recorded; once.
@Suite struct ConsumptionEndToEndTests {
    @Test(arguments: TestBackend.allCases) func aConsentingPlayersRequestIsAnsweredOnce_anotherIsWithheld(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, confirmsWithServerAPI: true) { pipeline in
            let store = pipeline.stub.storeKit
            // Given two players who bought 100 coins each; the first spent 40 and consented
            var purchases: [StubTransaction] = []
            for (index, account) in ["consenting", "silent"].enumerated() {
                let purchase = StubTransaction(transactionID: "930000000\(index)", productID: "com.example.coins100")
                let signed = store.signTransaction(purchase)
                pipeline.stub.serverAPI.register(
                    signedTransaction: signed, transactionID: purchase.transactionID, environment: .sandbox)
                let (_, id) = try await pipeline.submit(account: account, signedTransaction: signed)
                #expect(try await pipeline.finalStatus(try #require(id))["status"] as? String == "credited")
                purchases.append(purchase)
            }
            _ = try await AdjustmentRepository(pipeline.database).apply(
                .init(
                    accountID: "consenting", change: .currency("coins", amount: -40), reason: "spent in the shop",
                    operatorName: "tests", idempotencyKey: UUID().uuidString),
                catalog: PipelineHarness.catalog, now: Date())
            let (status, consent) = try await pipeline.put(
                "/v1/accounts/consenting/consumption-consent", ["consented": true])
            #expect(status == 200)
            #expect(consent["consented"] as? Bool == true)

            // When Apple asks about both purchases
            for purchase in purchases {
                let request = store.signNotification(type: .consumptionRequest, transaction: purchase)
                #expect(try await store.send(request, to: pipeline.notificationURL) == 200)
            }
            #expect(await pipeline.notificationsSettled(2))
            let api = try pipeline.serverAPIClient()
            let responder = ConsumptionResponder(
                api: api, database: pipeline.database, prefers: true, logger: Logger(label: "consumption"))
            let answered = try await responder.answerPending()

            // Then Apple hears of the first once: delivered, 40 % consumed, prorated
            #expect(answered.map(\.status) == [.sent, .withheld])
            let sent = pipeline.stub.serverAPI.consumptionAnswers
            #expect(sent.count == 1)
            #expect(sent.first?.transactionID == purchases[0].transactionID)
            #expect(sent.first?.information.customerConsented == true)
            #expect(sent.first?.information.deliveryStatus == "DELIVERED")
            #expect(sent.first?.information.consumptionPercentage == 40_000)
            #expect(sent.first?.information.refundPreference == "GRANT_PRORATED")
            // And nothing of the second, whose player never consented
            #expect(answered.last?.reason == "no_consent")

            // And a second pass answers nothing again
            #expect(try await responder.answerPending().isEmpty)
            #expect(pipeline.stub.serverAPI.consumptionAnswers.count == 1)
        }
    }

    @Test func consentIsTrueOrFalse_forAKnownAccount_andShowsOnTheAccount() async throws {
        try await PipelineHarness.run { pipeline in
            // An account the pipeline never saw: 404, and no account or consent appears (issue 25)
            let (unknown, notFound) = try await pipeline.put("/v1/accounts/p1/consumption-consent", ["consented": true])
            #expect(unknown == 404)
            #expect((notFound["error"] as? [String: Any])?["code"] as? String == "not_found")
            #expect(try await LedgerRepository(pipeline.database).account(id: "p1") == nil)
            #expect(try await ConsumptionRepository(pipeline.database).consent(accountID: "p1") == nil)
            // Once it has submitted a receipt, it is known
            let receipt = pipeline.receipt(transactions: [(id: "c-1", product: "com.example.coins100")])
            #expect(try await pipeline.submit(account: "p1", receiptData: receipt).0 == 202)
            for body in [["consented": 1], ["consented": "true"], [:], ["consented": true, "extra": 1]]
                as [[String: Any]]
            {
                let (status, error) = try await pipeline.put("/v1/accounts/p1/consumption-consent", body)
                #expect(status == 400, "\(body)")
                #expect((error["error"] as? [String: Any])?["code"] != nil, "\(error)")
            }
            let (badID, _) = try await pipeline.put("/v1/accounts/bad%20id/consumption-consent", ["consented": true])
            #expect(badID == 400)
            #expect(try await ConsumptionRepository(pipeline.database).consent(accountID: "p1") == nil)

            let (granted, _) = try await pipeline.put("/v1/accounts/p1/consumption-consent", ["consented": true])
            let (withdrawn, body) = try await pipeline.put("/v1/accounts/p1/consumption-consent", ["consented": false])
            #expect(granted == 200 && withdrawn == 200)
            #expect(body["consented"] as? Bool == false)
            let account = try #require(try await LedgerRepository(pipeline.database).account(id: "p1"))
            #expect(account.consumptionConsent?.consented == false)
        }
    }
}
