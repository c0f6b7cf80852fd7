import Database
import Foundation
import Fulfiller
import GooglePlay
import HTTPClient
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StorePlugins
import Testing

@testable import EndToEndSupport

/// A plug-in store a deployment does not configure: the intake names it as off rather than
/// as an unknown field, serves no notification route for it, and stores nothing; a fulfiller
/// that cannot talk to a store leaves what it is owed to one that can.
@Suite struct PluginStoresOffTests {
    @Test func aStoreThatIsOffIsRefusedByNameAndStoresNothing() async throws {
        try await PipelineHarness.run(.sqlite) { pipeline in
            // Given a pipeline without Huawei's or Stripe's settings
            // When a backend posts a Huawei purchase
            let (status, answer) = try await pipeline.submitHuawei(
                account: "hw-off", token: "hw-off-1", product: "com.example.coins100")

            // Then it is refused naming the store, and nothing is stored
            let error = answer["error"] as? [String: Any]
            #expect(status == 400, "\(answer)")
            #expect(error?["code"] as? String == "store_not_configured" && error?["field"] as? String == "huawei")
            #expect(try await pipeline.balance("hw-off") == 0)

            // And neither store's notification route exists
            for store in ["huawei", "stripe"] {
                let (notified, _) = try await pipeline.postStoreNotification(store, body: Array("{}".utf8))
                #expect(notified == 404, "\(store)")
            }
            #expect(try await pipeline.storedNotifications() == 0)
        }
    }

    @Test func aFulfillerWithoutGooglesServiceAccountLeavesGooglesConfirmationsToOneWithIt() async throws {
        try await withTestDatabase(.sqlite) { database in
            // Given an acknowledgement Google is owed, due now
            let now = Date()
            try await database.transaction { db in
                try await db.execute(
                    """
                    INSERT INTO store_confirmations (
                        store, transaction_id, payload, status, attempts, next_attempt_at, created_at)
                    VALUES ('google', 'GPA.1', ?, 'pending', 0, ?, ?)
                    """, [PlayAcknowledgementsAtV12.payload("consume", "com.example.coins100", "tok-1"), now, now])
            }
            // When a confirmer runs where Google has no service account (Google is never off)
            let http = try CurlHTTPClient()
            var configuration = StoreConfirmer.Configuration()
            configuration.interval = .milliseconds(20)
            let confirmer = StoreConfirmer(
                store: ConfirmationRepository(database),
                stores: StoreRegistry(known: [GooglePlayStore.self], configured: [GooglePlayStore(setup: nil)]),
                context: StoreContext(
                    httpClient: http, budgets: LocalCallBudgetKeeper(), catalog: Catalog(products: []),
                    logger: Logger(label: "test")),
                configuration: configuration)
            let running = Task { try await confirmer.run() }
            try await Task.sleep(for: .milliseconds(500))
            running.cancel()
            _ = await running.result
            await http.shutdown()

            // Then it is not claimed, not even counted as an attempt: one with the account pays it
            let owed = try await ConfirmationRepository(database).confirmation(store: "google", transactionID: "GPA.1")
            #expect(owed?.status == .pending && owed?.attempts == 0)
        }
    }
}
