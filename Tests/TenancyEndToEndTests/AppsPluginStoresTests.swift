import Foundation
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// The plug-in stores in a pipeline of two apps, every stage its own process, both databases:
/// a Xiaomi order or an Amazon purchase that names the other app's identity (its Xiaomi
/// `app_id`, its Amazon package) is refused naming that app, without a call to the store, and
/// credits nobody; an Amazon notification of the other app's package is that app's.
@Suite struct AppsPluginStoresTests {
    typealias T = TenancyPipeline

    @Test(arguments: TestBackend.allCases) func anotherAppsXiaomiOrAmazonPurchaseIsRefusedNamingIt(
        _ backend: TestBackend
    ) async throws {
        try await T.run(backend) { apps in
            // When puzzle's backend posts racer's Xiaomi order and racer's Amazon purchase
            let xiaomi = try await apps.call(
                .post, "/v1/receipts", token: ProcessPipeline.token,
                body: [
                    "account_id": "player-2",
                    "xiaomi": ["app_id": T.racerXiaomiAppID, "cp_order_id": "astray-mi", "uid": "100010"],
                ])
            let amazon = try await apps.call(
                .post, "/v1/receipts", token: ProcessPipeline.token,
                body: [
                    "account_id": "player-2",
                    "amazon": [
                        "user_id": "astray-user", "receipt_id": "astray=:1:11", "package_name": T.racerAmazonPackage,
                    ],
                ])

            // Then each is refused naming racer, and neither store was asked
            for posted in [xiaomi, amazon] {
                let id = try #require(posted.json["receipt_id"] as? String, "\(posted.json)")
                let receipt = try await apps.finalReceipt(id, token: ProcessPipeline.token)
                #expect(receipt["status"] as? String == "rejected", "\(receipt)")
                #expect(receipt["reason"] as? String == "app_mismatch: belongs to racer", "\(receipt)")
            }
            #expect(apps.stub.xiaomi.queries == 0 && apps.stub.amazon.calls == 0)
            #expect(try await apps.coins("player-2", token: ProcessPipeline.token) == 0)

            // And an Amazon notification of racer's package is racer's: about a receipt racer never
            // recorded, it is dropped unstored, RVS not asked
            let bought = apps.stub.amazon.buy(userID: "racer-user", productID: "com.example.coins100")
            let (status, answer) = try await apps.notify(
                "amazon",
                body: apps.stub.amazon.notification(
                    "CONSUMABLE_PURCHASED", receiptID: bought.receiptID, package: T.racerAmazonPackage
                ).body)
            #expect(status == 200 && answer["ignored"] as? String == "unknown_purchase", "\(answer)")
            #expect(apps.stub.amazon.calls == 0)
        }
    }
}
