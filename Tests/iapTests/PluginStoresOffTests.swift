import Foundation
import PipelineTesting
import Testing

/// A plug-in store a deployment does not configure: the intake names it as off rather than
/// as an unknown field, serves no notification route for it, and stores nothing.
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
}
