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

/// Google Play acknowledgements a v12 fulfiller still owed, after the upgrade to v13 (which
/// moves them into `store_confirmations`): the pipeline's `StoreConfirmer` pays the pending
/// one through the Google stub, once, when it is due, and leaves the done and the failed
/// ones as they were; on both backends.
@Suite struct GoogleAcknowledgementsUpgradeEndToEndTests {
    static let unlock = Product(productID: "com.example.noads", kind: .nonConsumable, entitlement: "no_ads")
    static let catalog = Catalog(products: PipelineHarness.catalog.products + [unlock])

    @Test(arguments: TestBackend.allCases) func whatV12OwedGoogleIsPaidOnceByTheStoreConfirmer(
        _ backend: TestBackend
    ) async throws {
        let now = Date()
        // Given a database written at v12 whose pending acknowledgement is due in 15 s
        let write: (any SQLDatabase) async throws -> Void = { database in
            try await PlayAcknowledgementsAtV12.write(
                database, consumable: "com.example.coins100", unlock: Self.unlock.productID,
                now: now, dueAt: now.addingTimeInterval(15))
        }
        // When the pipeline opens it (v13 runs), with Google knowing the pending purchase
        try await PipelineHarness.run(backend, writtenAt: 12, by: write, catalog: Self.catalog) { pipeline in
            pipeline.stub.googlePlay.register(
                token: "tok-pend",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: "com.example.coins100")], purchaseState: "PURCHASED",
                    orderId: "GPA.pend"))

            // Then the pending one is consumed, once, on its third attempt
            #expect(await pipeline.googleConfirmation("GPA.pend", becomes: .done))
            let paid = try await pipeline.googleConfirmation("GPA.pend")
            #expect(paid?.action == .consume && paid?.row.attempts == 3 && paid?.row.receiptID == "r-pend")
            // And the one Google never issued is given up on (404), left for an operator
            #expect(await pipeline.googleConfirmation("tok-orphan", becomes: .failed))
            #expect(pipeline.stub.googlePlay.stats.consumed == ["tok-pend"])
            #expect(pipeline.stub.googlePlay.stats.acknowledged.isEmpty)
            // And the done and failed ones are as they were
            let done = try await pipeline.googleConfirmation("GPA.done")
            #expect(done?.row.status == .done && done?.action == .acknowledge && done?.row.attempts == 1)
            let failed = try await pipeline.googleConfirmation("GPA.fail")
            #expect(failed?.row.status == .failed && failed?.row.lastError == "not found")
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }
}

extension PipelineHarness {
    /// Runs `body` against a pipeline over a database of `backend` that `write` filled at
    /// schema `version`, upgraded as the pipeline opens it.
    static func run(
        _ backend: TestBackend, writtenAt version: Int, by write: (any SQLDatabase) async throws -> Void,
        catalog: Catalog, _ body: (PipelineHarness) async throws -> Void
    ) async throws {
        try await withTestDatabase(backend, writtenAt: version, by: write) { database, environment in
            try await run(
                database: database, databaseEnvironment: environment, stub: StubStoreConfiguration(bundleID: bundleID),
                maxAttempts: 6, runsValidator: true, confirmsWithServerAPI: false, scheduler: .init(), console: nil,
                receiptVerification: .apple, catalog: catalog, pluginStores: false, body)
        }
    }
}
