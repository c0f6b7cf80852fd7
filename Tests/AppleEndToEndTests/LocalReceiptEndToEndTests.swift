import Foundation
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// The whole pipeline with `IAP_RECEIPT_VERIFICATION=local`: PKCS #7 receipts the stub store
/// signed are credited without a single `verifyReceipt` call, and forged ones are rejected.
@Suite(.serialized) struct LocalReceiptEndToEndTests {
    @Test(arguments: TestBackend.allCases) func pkcs7Receipt_isCreditedLocally_withoutAskingTheStoreOnce(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, receiptVerification: .local) { pipeline in
            // Given a sandbox receipt with two purchases, minted as Apple mints receipts
            let data = pipeline.stub.issuePKCS7(
                StubReceipt(
                    bundleID: PipelineHarness.bundleID, environment: .sandbox,
                    transactions: [
                        .init(transactionID: "local-1", productID: "com.example.coins100", quantity: 2),
                        .init(transactionID: "local-2", productID: "com.example.coins500"),
                    ]))
            // When the backend submits it
            let (status, id) = try await pipeline.submit(account: "local-player", receiptData: data)
            #expect(status == 202)
            // Then it is credited as verifyReceipt would have credited it
            let final = try await pipeline.finalStatus(try #require(id))
            #expect(final["status"] as? String == "credited")
            #expect(final["environment"] as? String == "Sandbox")
            #expect(try await pipeline.balance("local-player") == 2 * 100 + 500)
            // And the store was never asked
            let stats = pipeline.stub.stats
            #expect(stats.production.requests == 0)
            #expect(stats.sandbox.requests == 0)
        }
    }

    @Test(arguments: TestBackend.allCases) func receiptSignedUnderAnotherRoot_isRejectedWithTheChainReason(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, receiptVerification: .local) { pipeline in
            // Given a well-formed receipt signed by a chain the pipeline does not trust
            let forged = StubAppStore().issuePKCS7(
                StubReceipt(
                    bundleID: PipelineHarness.bundleID,
                    transactions: [.init(transactionID: "forged-1", productID: "com.example.coins500")]))
            let (_, id) = try await pipeline.submit(account: "forger", receiptData: forged)
            let final = try await pipeline.finalStatus(try #require(id))
            #expect(final["status"] as? String == "rejected")
            #expect((final["reason"] as? String)?.hasPrefix("receipt_chain_invalid: ") == true)
            #expect(try await pipeline.balance("forger") == 0)
            #expect(pipeline.stub.stats.production.requests == 0)
        }
    }
}
