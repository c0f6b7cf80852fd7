import Foundation
import GooglePlay
import HTTPClient
import Notifier
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// Two apps of one pipeline (issue 30), each stage an `iap` process with `IAP_APPS`, through
/// the real broker, on both backends: the same player credited in each app apart, by its
/// app's catalog, each app's webhook at its own receiver signed with its own secret,
/// neither app's token reading the other's receipt, and a receipt of one app posted with
/// the other's token refused naming the app it belongs to; Apple's notification and
/// Google's push of the second app applied to its accounts alone.
@Suite struct AppsEndToEndTests {
    static let racerToken = "racer-backend-token-00001"
    static let racerBundle = "com.example.racer"
    static let racerPackage = "com.example.racer.android"

    @Test(arguments: TestBackend.allCases) func twoAppsShareThePipelineAndNeverSeeEachOther(_ backend: TestBackend)
        async throws
    {
        let puzzleSecret = WebhookSecret.generate()
        let racerSecret = WebhookSecret.generate()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await withWebhookReceiver(secret: puzzleSecret.encoded) { puzzleHook in
            try await withWebhookReceiver(secret: racerSecret.encoded) { racerHook in
                // The first app is the default app: ProcessPipeline's IAP_API_TOKENS is its token too.
                // The racing game sells its 500-coin product for 700 coins; the puzzle game
                // keeps the sample catalog (IAP_CATALOG unset).
                let racerCatalog = directory.file("racer-catalog.json")
                try """
                {"products": [{"product_id": "com.example.coins500", "type": "consumable",
                               "grant": {"currency": "coins", "amount": 700}}]}
                """.write(toFile: racerCatalog, atomically: true, encoding: .utf8)
                // Written once the stub runs, which issues it.
                let racerPlay = directory.file("racer-play.json")
                let apps = directory.file("apps.yaml")
                try """
                apps:
                  - id: puzzle
                    api_tokens: [\(ProcessPipeline.token)]
                    webhook: { url: "\(puzzleHook.url)", secret: "\(puzzleSecret.encoded)" }
                    apple: { bundle_id: \(PipelineHarness.bundleID) }
                  - id: racer
                    api_tokens: [\(Self.racerToken)]
                    webhook: { url: "\(racerHook.url)", secret: "\(racerSecret.encoded)" }
                    apple: { bundle_id: \(Self.racerBundle), environment: Sandbox }
                    google_play:
                      package_names: [\(Self.racerPackage)]
                      service_account: \(racerPlay)
                      push_audience: \(Self.racerPushAudience)
                      push_service_account: \(Self.racerPushAccount)
                    catalog: \(racerCatalog)
                """.write(toFile: apps, atomically: true, encoding: .utf8)
                try await Self.withDatabase(backend) { databaseEnvironment in
                    try await ProcessPipeline.run(
                        stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID),
                        environment: databaseEnvironment.merging(["IAP_APPS": apps]) { $1 }
                    ) { pipeline in
                        try await Self.run(
                            pipeline, puzzleHook: puzzleHook, racerHook: racerHook, racerPlay: racerPlay)
                    }
                }
            }
        }
    }

    @Test func aBadAppsFileStopsEveryProcessNamingTheAppAndMember() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let apps = directory.file("apps.yaml")
        try """
        apps:
          - id: puzzle
            api_tokens: [puzzle-backend-token-0001]
          - id: racer
            api_tokens: [racer-short]
        """.write(toFile: apps, atomically: true, encoding: .utf8)
        // The stages that serve apps and those that do not yet, and a command.
        for command in ["intake", "notifier", "fulfiller", "validator", "migrate"] {
            let run = try await IAPProcess.run(
                [command], environment: ["IAP_APPS": apps, "IAP_DB_PATH": directory.file("\(command).sqlite")])
            #expect(run.status != 0, "\(command): \(run.output)")
            #expect(run.output.contains("IAP_APPS: app racer: api_tokens"), "\(command): \(run.output)")
            #expect(!run.output.contains("racer-short") && !run.output.contains("puzzle-backend-token-0001"))
            #expect(!FileManager.default.fileExists(atPath: directory.file("\(command).sqlite")), "\(command)")
        }
    }

    static func run(
        _ pipeline: ProcessPipeline, puzzleHook: WebhookReceiver, racerHook: WebhookReceiver, racerPlay: String
    ) async throws {
        let stubURL = "http://127.0.0.1:\(pipeline.stubPort)"
        try pipeline.stub.googlePlay.serviceAccountJSON(baseURL: stubURL).write(to: URL(fileURLWithPath: racerPlay))
        // The stub signs StoreKit 2 data as Sandbox, with its own root (the first app keeps
        // the single-app settings where its members are silent).
        let root = pipeline.directory.file("stub-root.der")
        try Data(pipeline.stub.storeKit.rootDER).write(to: URL(fileURLWithPath: root))
        // Google's pushes come to the one endpoint of the intake, whatever the app: the
        // intake checks Pub/Sub's token against each app's subscription (the default app's
        // from these variables, racer's from its entry), the validator routes by package name.
        let storeKit = [
            "IAP_APPLE_ROOT_CA": root, "IAP_APPSTORE_ENVIRONMENT": "Sandbox",
            "IAP_GOOGLE_PLAY_API_URL": stubURL + "/google", "IAP_GOOGLE_CERTS_URL": stubURL + StubGooglePlay.certsPath,
            "IAP_GOOGLE_PUSH_AUDIENCE": googlePushURL(pipeline),
            "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT": StubGooglePlay.pushServiceAccount,
        ]
        for stage in ["intake", "validator", "fulfiller", "notifier"] {
            _ = try pipeline.start([stage], environment: storeKit)
        }
        #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))

        // The same player-1 buys 100 coins in the puzzle game and the 500-coin product of
        // the racing game, which its catalog sells for 700.
        let (puzzleStatus, puzzleReceipt) = try await pipeline.submit(
            account: "player-1", receiptData: pipeline.receipt(transaction: "apps-puzzle-1"))
        let racerPurchase = pipeline.receipt(
            transaction: "apps-racer-1", product: "com.example.coins500", bundleID: racerBundle)
        let racer = try await call(
            pipeline, .post, "/v1/receipts", token: racerToken,
            body: ["account_id": "player-1", "receipt_data": racerPurchase])
        #expect(puzzleStatus == 202 && racer.status == 202)
        let racerReceipt = try #require(racer.json["receipt_id"] as? String)

        // Each app's webhook arrives at its own receiver, verified with its own secret.
        #expect(await eventually(timeout: .seconds(60)) { !puzzleHook.accepted.isEmpty && !racerHook.accepted.isEmpty })
        for (hook, receipt) in [(puzzleHook, puzzleReceipt), (racerHook, racerReceipt)] {
            let bodies = hook.received.map { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }
            #expect(hook.received.allSatisfy { $0.signature == .valid })
            #expect(bodies.allSatisfy { $0?["account_id"] as? String == "player-1" }, "\(bodies)")
            #expect(bodies.allSatisfy { $0?["receipt_id"] as? String == receipt }, "\(bodies)")
        }

        // Credited apart: each token sees its own player-1.
        for (token, coins) in [(ProcessPipeline.token, 100), (racerToken, 700)] {
            let account = try await call(pipeline, .get, "/v1/accounts/player-1", token: token)
            #expect(account.status == 200 && account.json["account_id"] as? String == "player-1")
            #expect((account.json["balances"] as? [String: Any])?["coins"] as? Int == coins, "\(account.json)")
        }
        // And neither reads the other's receipt.
        let hidden = try await call(pipeline, .get, "/v1/receipts/\(racerReceipt)", token: ProcessPipeline.token)
        let shown = try await call(pipeline, .get, "/v1/receipts/\(racerReceipt)", token: racerToken)
        #expect(hidden.status == 404 && shown.status == 200 && shown.json["status"] as? String == "credited")

        // A receipt of the racing game posted with the puzzle game's token is refused naming
        // its app, and credits nobody.
        let astray = try await call(
            pipeline, .post, "/v1/receipts", token: ProcessPipeline.token,
            body: [
                "account_id": "player-2",
                "receipt_data": pipeline.receipt(
                    transaction: "apps-racer-2", product: "com.example.coins500", bundleID: racerBundle),
            ])
        // As is a StoreKit 2 transaction of the racing game.
        let astraySigned = try await call(
            pipeline, .post, "/v1/receipts", token: ProcessPipeline.token,
            body: [
                "account_id": "player-2",
                "signed_transaction": pipeline.stub.storeKit.signTransaction(
                    StubTransaction(productID: "com.example.coins500"), app: racerBundle),
            ])
        // And a Google Play purchase of its package, refused without asking Google.
        let astrayPlay = try await call(
            pipeline, .post, "/v1/receipts", token: ProcessPipeline.token,
            body: [
                "account_id": "player-2",
                "google_play": [
                    "package_name": racerPackage, "product_id": "com.example.coins500", "purchase_token": "apps-play-1",
                ],
            ])
        for posted in [astray, astraySigned, astrayPlay] {
            let id = try #require(posted.json["receipt_id"] as? String, "\(posted.json)")
            #expect(
                await eventually(timeout: .seconds(60)) {
                    let receipt = try? await call(pipeline, .get, "/v1/receipts/\(id)", token: ProcessPipeline.token)
                    return receipt?.json["status"] as? String == "rejected"
                })
            let refused = try await call(pipeline, .get, "/v1/receipts/\(id)", token: ProcessPipeline.token)
            #expect(refused.json["reason"] as? String == "app_mismatch: belongs to racer", "\(refused.json)")
        }
        let player2 = try await call(pipeline, .get, "/v1/accounts/player-2", token: ProcessPipeline.token)
        #expect((player2.json["balances"] as? [String: Any])?["coins"] as? Int ?? 0 == 0, "\(player2.json)")

        // Apple refunds the racing game's purchase: its notification names the racing game's
        // bundle id, is verified as that app's and takes back what its catalog gave, from
        // its player-1 alone.
        var refunded = StubTransaction(transactionID: "apps-racer-1", productID: "com.example.coins500")
        refunded.revocationDate = Date()
        let refund = pipeline.stub.storeKit.signNotification(type: .refund, transaction: refunded, app: racerBundle)
        let intake = "http://127.0.0.1:\(pipeline.intakePort)/v1/apple/notifications"
        #expect(try await pipeline.stub.storeKit.send(refund, to: intake) == 200)
        #expect(
            await eventually(timeout: .seconds(60)) {
                let account = try? await call(pipeline, .get, "/v1/accounts/player-1", token: racerToken)
                return (account?.json["balances"] as? [String: Any])?["coins"] as? Int == 0
            })
        let puzzlePlayer = try await call(pipeline, .get, "/v1/accounts/player-1", token: ProcessPipeline.token)
        #expect((puzzlePlayer.json["balances"] as? [String: Any])?["coins"] as? Int == 100, "\(puzzlePlayer.json)")

        try await googlePushReachesItsApp(pipeline, puzzleHook: puzzleHook, racerHook: racerHook)

        // After purchases, refunds and pushes in both apps, the operator's audit finds the
        // books clean for each app and for all.
        let all = try await IAPProcess.run(["audit"], environment: pipeline.environment)
        #expect(all.status == 0 && all.output.contains("the books balance"), "\(all.output)")
        #expect(all.output.contains("puzzle: clean") && all.output.contains("racer: clean"), "\(all.output)")
        for app in ["puzzle", "racer"] {
            let one = try await IAPProcess.run(["audit", "--app", app], environment: pipeline.environment)
            #expect(one.status == 0 && one.output.contains("app \(app): the books balance"), "\(one.output)")
        }
    }

    /// Racer's own Pub/Sub push subscription: another project's audience and service account.
    static let racerPushAudience = "https://racer.example.com/v1/google/notifications"
    static let racerPushAccount = "rtdn-push@racer-project.iam.gserviceaccount.com"

    static func googlePushURL(_ pipeline: ProcessPipeline) -> String {
        "http://127.0.0.1:\(pipeline.intakePort)/v1/google/notifications"
    }

    /// Google refunds the racing game's Play purchase of player-3 and pushes the notice: it
    /// names racer's package, is read with racer's service account and debits racer's
    /// player-3 alone; puzzle's player-3 keeps its coins and its webhook hears nothing of it.
    static func googlePushReachesItsApp(
        _ pipeline: ProcessPipeline, puzzleHook: WebhookReceiver, racerHook: WebhookReceiver
    ) async throws {
        func coins(_ token: String) async -> Int? {
            let account = try? await call(pipeline, .get, "/v1/accounts/player-3", token: token)
            return (account?.json["balances"] as? [String: Any])?["coins"] as? Int
        }
        let order = "GPA.3333-0000-1111-22222"
        let play = pipeline.stub.googlePlay
        play.register(
            token: "apps-play-3",
            ProductPurchaseV2(
                productLineItem: [.init(productId: "com.example.coins500", productOfferDetails: .init(quantity: 1))],
                purchaseState: "PURCHASED", orderId: order))
        _ = try await pipeline.submit(account: "player-3", receiptData: pipeline.receipt(transaction: "apps-puzzle-3"))
        let bought = try await call(
            pipeline, .post, "/v1/receipts", token: racerToken,
            body: [
                "account_id": "player-3",
                "google_play": [
                    "package_name": racerPackage, "product_id": "com.example.coins500", "purchase_token": "apps-play-3",
                ],
            ])
        #expect(bought.status == 202, "\(bought.json)")
        #expect(
            await eventually(timeout: .seconds(60)) {
                let (racer, puzzle) = (await coins(racerToken), await coins(ProcessPipeline.token))
                return racer == 700 && puzzle == 100
            }, "\(pipeline.logs().suffix(2000))")

        play.void(token: "apps-play-3", at: Date().addingTimeInterval(-1))
        let notice: [String: Any] = [
            "version": "1.0", "packageName": racerPackage,
            "eventTimeMillis": String(Int64(Date().timeIntervalSince1970 * 1000)),
            "voidedPurchaseNotification": [
                "purchaseToken": "apps-play-3", "orderId": order, "productType": 2, "refundType": 1,
            ],
        ]
        // Racer's Pub/Sub subscription is its own: its audience and service account, not the
        // default app's; a push for an audience no app has is refused.
        let stranger = try await play.push(
            notice, to: googlePushURL(pipeline), audience: "https://elsewhere.example.com/push",
            email: racerPushAccount, http: pipeline.client)
        #expect(stranger.status == 401)
        let pushed = try await play.push(
            notice, to: googlePushURL(pipeline), audience: racerPushAudience, email: racerPushAccount,
            http: pipeline.client)
        #expect(pushed.status == 200)
        #expect(
            await eventually(timeout: .seconds(60)) { await coins(racerToken) == 0 },
            "\(pipeline.logs().suffix(2000))")
        #expect(await coins(ProcessPipeline.token) == 100)
        // Its webhook, the 700 coins taken back from the bare id, goes to racer's receiver only.
        #expect(
            await eventually(timeout: .seconds(60)) {
                racerHook.accepted.contains {
                    $0.bodyString.contains("\"account_id\":\"player-3\"") && $0.bodyString.contains("\"amount\":-700")
                }
            })
        #expect(!puzzleHook.received.contains { $0.bodyString.contains(order) })
    }

    /// A call to the intake with `token`: status and JSON body.
    static func call(
        _ pipeline: ProcessPipeline, _ method: HTTPRequest.Method, _ path: String, token: String,
        body: [String: Any]? = nil
    ) async throws -> (status: Int, json: [String: Any]) {
        var headers = [(name: "Authorization", value: "Bearer \(token)")]
        if body != nil { headers.append((name: "Content-Type", value: "application/json")) }
        let response = try await pipeline.client.execute(
            HTTPRequest(
                method: method, url: "http://127.0.0.1:\(pipeline.intakePort)\(path)", headers: headers,
                body: try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) },
                timeout: .seconds(10)))
        return (
            response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        )
    }

    /// The processes' database settings: ProcessPipeline's SQLite file, or a fresh database
    /// on the test PostgreSQL server.
    static func withDatabase(_ backend: TestBackend, _ body: ([String: String]) async throws -> Void) async throws {
        switch backend {
        case .sqlite:
            try await body([:])
        case .postgres:
            try await PostgresFixture.withDatabase { database in
                try await database.migrate()
                try await body(["IAP_DATABASE_URL": PostgresFixture.url(of: database.location.database)])
            }
        }
    }
}
