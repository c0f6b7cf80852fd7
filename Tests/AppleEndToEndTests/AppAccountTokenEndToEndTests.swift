import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Set App Account Token from the pipeline: a StoreKit 2 purchase the Server API confirmed
/// without an `appAccountToken` (an offer code redeemed in the App Store) is credited, and
/// Apple is told the token of the account it was credited to, once; a purchase that carries
/// a token owes nothing. On the real broker, both backends.
@Suite struct AppAccountTokenEndToEndTests {
    @Test(arguments: TestBackend.allCases) func aPurchaseWithoutATokenIsBoundAtAppleToTheAccountCredited(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, confirmsWithServerAPI: true) { pipeline in
            let store = pipeline.stub.storeKit
            // Given a purchase made outside the app (no token) and one made in it (a token)
            let outside = StubTransaction(transactionID: "940000001", productID: "com.example.coins100")
            var inside = StubTransaction(transactionID: "940000002", productID: "com.example.coins100")
            inside.appAccountToken = "4f0c5a1e-2b3d-4c5e-8f70-112233445566"
            for purchase in [inside, outside] {
                let signed = store.signTransaction(purchase)
                pipeline.stub.serverAPI.register(
                    signedTransaction: signed, transactionID: purchase.transactionID, environment: .sandbox)

                // When the backend posts each for the player
                let (_, id) = try await pipeline.submit(account: "offer-player", signedTransaction: signed)
                #expect(try await pipeline.finalStatus(try #require(id))["status"] as? String == "credited")
            }

            // Then Apple is told the player's token for the purchase made outside, once
            let confirmations = ConfirmationRepository(pipeline.database)
            let told = await eventually(timeout: .seconds(30)) {
                (try? await confirmations.confirmation(store: "apple", transactionID: "940000001"))?.status == .done
            }
            #expect(told)
            let owner = try #require(
                try await OrderRepository(pipeline.database).accountToken(creditedFor: "940000001", now: Date()))
            #expect(owner.accountID == "offer-player")
            #expect(
                pipeline.stub.serverAPI.accountTokens == [
                    .init(environment: .sandbox, originalTransactionID: "940000001", appAccountToken: owner.token)
                ])
            let owed = try await confirmations.confirmation(store: "apple", transactionID: "940000001")
            #expect(owed?.attempts == 1)
            // And the purchase that carried a token owes Apple nothing
            #expect(try await confirmations.confirmation(store: "apple", transactionID: "940000002") == nil)
            #expect(try await pipeline.balance("offer-player") == 200)
        }
    }
}
