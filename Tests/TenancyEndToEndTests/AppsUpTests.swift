import Foundation
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// `iap up` serves the apps of `IAP_APPS` as the separate stages do (issue 30): each app's
/// receipts verified with its own stores and credited by its own catalog, and a receipt of
/// one app posted with another's token refused naming the app it belongs to.
@Suite struct AppsUpTests {
    @Test func iapUpCreditsEachAppByItsCatalogAndRefusesAnotherAppsReceipt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let racerCatalog = directory.file("racer-catalog.json")
        try """
        {"products": [{"product_id": "com.example.coins500", "type": "consumable",
                       "grant": {"currency": "coins", "amount": 700}}]}
        """.write(toFile: racerCatalog, atomically: true, encoding: .utf8)
        let apps = directory.file("apps.yaml")
        try """
        apps:
          - id: puzzle
            api_tokens: [\(ProcessPipeline.token)]
            apple: { bundle_id: \(PipelineHarness.bundleID) }
          - id: racer
            api_tokens: [\(AppsEndToEndTests.racerToken)]
            apple: { bundle_id: \(AppsEndToEndTests.racerBundle) }
            catalog: \(racerCatalog)
        """.write(toFile: apps, atomically: true, encoding: .utf8)
        try await ProcessPipeline.run(
            stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID), environment: ["IAP_APPS": apps]
        ) { pipeline in
            // Given every stage in one `iap up` process, verifying against the test's stub
            _ = try pipeline.start(["up"])
            #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))

            // A receipt of the racing game's 500-coin product, posted with `token`.
            func postRacerPurchase(token: String, account: String, transaction: String) async throws
                -> (status: Int, json: [String: Any])
            {
                try await AppsEndToEndTests.call(
                    pipeline, .post, "/v1/receipts", token: token,
                    body: [
                        "account_id": account,
                        "receipt_data": pipeline.receipt(
                            transaction: transaction, product: "com.example.coins500",
                            bundleID: AppsEndToEndTests.racerBundle),
                    ])
            }

            // When the racing game posts its 500-coin product, which its catalog sells for 700
            let racer = try await postRacerPurchase(
                token: AppsEndToEndTests.racerToken, account: "player-1", transaction: "up-racer-1")
            #expect(racer.status == 202, "\(racer.json)")

            // Then its player-1 is credited 700, and the puzzle game's player-1 nothing
            let credited = await eventually(timeout: .seconds(60)) {
                let account = try? await AppsEndToEndTests.call(
                    pipeline, .get, "/v1/accounts/player-1", token: AppsEndToEndTests.racerToken)
                return (account?.json["balances"] as? [String: Any])?["coins"] as? Int == 700
            }
            #expect(credited, "\(pipeline.logs().suffix(2000))")
            let puzzle = try await AppsEndToEndTests.call(
                pipeline, .get, "/v1/accounts/player-1", token: ProcessPipeline.token)
            #expect(puzzle.status == 404, "\(puzzle.json)")

            // And a racing game's receipt posted with the puzzle game's token is refused naming its app
            let astray = try await postRacerPurchase(
                token: ProcessPipeline.token, account: "player-2", transaction: "up-racer-2")
            let id = try #require(astray.json["receipt_id"] as? String, "\(astray.json)")
            let refused = await eventually(timeout: .seconds(60)) {
                let receipt = try? await AppsEndToEndTests.call(
                    pipeline, .get, "/v1/receipts/\(id)", token: ProcessPipeline.token)
                return receipt?.json["reason"] as? String == "app_mismatch: belongs to racer"
            }
            #expect(refused, "\(pipeline.logs().suffix(2000))")
        }
    }
}
