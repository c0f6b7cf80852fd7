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

/// What the stores are owed after a credit, paid with each app's own credentials (issue 30):
/// two apps of one pipeline, each with its own Google service account and package, each
/// stage an `iap` process with `IAP_APPS`, through the real broker, on both backends. Each
/// app's purchase is consumed with its app's service account, and each app's calls are
/// booked in its own budget.
@Suite struct AppsStoreJobsEndToEndTests {
    static let puzzlePackage = "com.example.puzzle.android"

    @Test(arguments: TestBackend.allCases) func eachAppsPurchaseIsConfirmedWithItsOwnServiceAccount(
        _ backend: TestBackend
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Written once the stub runs, which issues both accounts.
        let puzzlePlay = directory.file("puzzle-play.json")
        let racerPlay = directory.file("racer-play.json")
        let apps = directory.file("apps.yaml")
        try """
        apps:
          - id: puzzle
            api_tokens: [\(ProcessPipeline.token)]
            google_play: { package_names: [\(Self.puzzlePackage)], service_account: \(puzzlePlay) }
          - id: racer
            api_tokens: [\(AppsEndToEndTests.racerToken)]
            google_play: { package_names: [\(AppsEndToEndTests.racerPackage)], service_account: \(racerPlay) }
        """.write(toFile: apps, atomically: true, encoding: .utf8)
        try await Self.withDatabase(backend) { environment, database in
            try await ProcessPipeline.run(
                stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID),
                environment: environment.merging(["IAP_APPS": apps]) { $1 }
            ) { pipeline in
                let stubURL = "http://127.0.0.1:\(pipeline.stubPort)"
                let play = pipeline.stub.googlePlay
                try play.serviceAccountJSON(baseURL: stubURL).write(to: URL(fileURLWithPath: puzzlePlay))
                try play.serviceAccountJSON(baseURL: stubURL, account: "racer")
                    .write(to: URL(fileURLWithPath: racerPlay))
                try await Self.run(pipeline, database: database ?? pipeline.database())
            }
        }
    }

    static func run(_ pipeline: ProcessPipeline, database: any SQLDatabase) async throws {
        let play = pipeline.stub.googlePlay
        for stage in ["intake", "validator", "fulfiller"] {
            _ = try pipeline.start(
                [stage], environment: ["IAP_GOOGLE_PLAY_API_URL": "http://127.0.0.1:\(pipeline.stubPort)/google"])
        }
        #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))

        // The same player-1 buys 100 coins on Android in each game.
        let purchases = [
            (
                token: "puzzle-play-1", order: "GPA.3000-0000-0000-00001", package: puzzlePackage,
                backend: ProcessPipeline.token
            ),
            (
                token: "racer-play-1", order: "GPA.3000-0000-0000-00002", package: AppsEndToEndTests.racerPackage,
                backend: AppsEndToEndTests.racerToken
            ),
        ]
        for purchase in purchases {
            play.register(
                token: purchase.token,
                ProductPurchaseV2(
                    productLineItem: [
                        .init(productId: "com.example.coins100", productOfferDetails: .init(quantity: 1))
                    ],
                    purchaseState: "PURCHASED", orderId: purchase.order, purchaseCompletionTime: "2026-11-25T10:00:00Z")
            )
            let posted = try await AppsEndToEndTests.call(
                pipeline, .post, "/v1/receipts", token: purchase.backend,
                body: [
                    "account_id": "player-1",
                    "google_play": [
                        "package_name": purchase.package, "product_id": "com.example.coins100",
                        "purchase_token": purchase.token,
                    ],
                ])
            #expect(posted.status == 202, "\(posted.json)")
        }

        // Then each is consumed, once, by its own app's service account.
        let confirmations = ConfirmationRepository(database)
        #expect(
            await eventually(timeout: .seconds(60)) {
                var done = 0
                for purchase in purchases {
                    let row = try? await confirmations.confirmation(store: "google", transactionID: purchase.order)
                    if row?.status == .done { done += 1 }
                }
                return done == purchases.count
            }, "\(pipeline.logs().suffix(4000))")
        #expect(
            play.stats.confirmedBy == [
                "puzzle-play-1": play.clientEmail, "racer-play-1": StubGooglePlay.clientEmail(of: "racer"),
            ])
        #expect(play.stats.consumed.sorted() == ["puzzle-play-1", "racer-play-1"])
        #expect(try await confirmations.confirmation(store: "google", transactionID: purchases[0].order)?.app == nil)
        #expect(
            try await confirmations.confirmation(store: "google", transactionID: purchases[1].order)?.app == "racer")

        // And each app's calls (the validator's read, the fulfiller's consumption) were booked
        // in its own budget: the default app's under today's name.
        let budgets = try await database.snapshot { db in
            try await db.rows("SELECT name FROM call_budgets ORDER BY name").map { try $0.get("name", as: String.self) }
        }
        #expect(budgets == ["googleplay/one_time_purchases", "racer/googleplay/one_time_purchases"])
        for token in [ProcessPipeline.token, AppsEndToEndTests.racerToken] {
            let account = try await AppsEndToEndTests.call(pipeline, .get, "/v1/accounts/player-1", token: token)
            #expect((account.json["balances"] as? [String: Any])?["coins"] as? Int == 100, "\(account.json)")
        }
    }

    /// The processes' database settings, and the database itself for PostgreSQL (nil:
    /// ProcessPipeline's SQLite file).
    static func withDatabase(
        _ backend: TestBackend, _ body: ([String: String], (any SQLDatabase)?) async throws -> Void
    ) async throws {
        switch backend {
        case .sqlite:
            try await body([:], nil)
        case .postgres:
            try await PostgresFixture.withDatabase { database in
                try await database.migrate()
                try await body(["IAP_DATABASE_URL": PostgresFixture.url(of: database.location.database)], database)
            }
        }
    }
}
