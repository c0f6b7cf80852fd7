import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Orders made over HTTP, paid with StoreKit 2, through the real queue.
@Suite struct OrdersEndToEndTests {
    @Test(arguments: TestBackend.allCases)
    func aPurchaseCarryingTheOrdersToken_isCreditedToTheOrdersAccount_evenWhenAnotherClaimsIt(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend) { pipeline in
            // Given an order for alice
            let (status, order) = try await pipeline.post(
                "/v1/orders", ["account_id": "alice", "product_id": "com.example.coins500"])
            #expect(status == 201)
            let token = try #require(order["app_account_token"] as? String)
            let orderID = try #require(order["order_id"] as? String)

            // When the app buys with its token, and bob's backend session sends the receipt
            let purchase = StubTransaction(productID: "com.example.coins500", appAccountToken: token)
            let (_, receiptID) = try await pipeline.submit(
                account: "bob", signedTransaction: pipeline.stub.storeKit.signTransaction(purchase))

            // Then alice is credited, not bob
            #expect(try await pipeline.finalStatus(try #require(receiptID))["status"] as? String == "credited")
            #expect(try await pipeline.balance("alice") == 500)
            #expect(try await pipeline.balance("bob") == 0)
            #expect(
                try await OrderRepository(pipeline.database).bindingConflicts().first?.binding == "app_account_token")
            // The order was not named, so it stays open until it expires or is cancelled.
            #expect(try await OrderRepository(pipeline.database).order(id: orderID, now: Date())?.status == .open)
        }
    }

    @Test(arguments: TestBackend.allCases) func aMismatchedPurchase_creditsApplesProduct_andTheWebhookSaysSo(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            let (_, order) = try await pipeline.post(
                "/v1/orders", ["account_id": "carol", "product_id": "com.example.coins500"])
            let orderID = try #require(order["order_id"] as? String)

            // A fast tap: the 100-coin pack was bought against the 500-coin order.
            let purchase = StubTransaction(productID: "com.example.coins100")
            let (_, receiptID) = try await pipeline.submit(
                account: "carol", signedTransaction: pipeline.stub.storeKit.signTransaction(purchase), orderID: orderID)
            let id = try #require(receiptID)
            #expect(try await pipeline.finalStatus(id)["status"] as? String == "credited")
            #expect(try await pipeline.balance("carol") == 100)
            #expect(try await OrderRepository(pipeline.database).order(id: orderID, now: Date())?.status == .mismatched)

            _ = try await pipeline.receiver.waitFor(count: 1, timeout: .seconds(30), where: { $0.wasAccepted })
            let webhook = try #require(pipeline.webhooks(for: id).first)
            let said = (webhook["data"] as? [String: Any])?["order"] as? [String: Any]
            #expect(said?["status"] as? String == "mismatched")
            #expect(said?["credited_product_id"] as? String == "com.example.coins100")
        }
    }
}
