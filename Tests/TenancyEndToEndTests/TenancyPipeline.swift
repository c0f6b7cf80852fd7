import Database
import Foundation
import HTTPClient
import Notifier
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Two apps of one pipeline, each stage an `iap` process, every store configured for each as
/// an operator would (issue 53): `puzzle`, the default app, with Apple, Google Play, Huawei and
/// Stripe by the single-app variables; `racer` with its own Apple bundle, Google Play package
/// and push subscription, and its own Stripe account, in the apps file. Each app's webhooks
/// go to a receiver of its own; the test reads the books through `books`.
struct TenancyPipeline {
    static let racerToken = AppsEndToEndTests.racerToken
    static let racerBundle = AppsEndToEndTests.racerBundle
    static let racerPackage = AppsEndToEndTests.racerPackage
    static let puzzleStripeSecret = "whsec_puzzle_0123456789abcdef"
    static let racerStripeSecret = "whsec_racer_0123456789abcdef0"
    static let racerStripeKey = "sk_test_racer_account"
    /// Racer's own Xiaomi app and Amazon package (one developer account: the same shared secret).
    static let racerXiaomiAppID = "2882303761517000777"
    static let racerAmazonPackage = "com.example.racer.amazon"

    let pipeline: ProcessPipeline
    let puzzleHook: WebhookReceiver
    let racerHook: WebhookReceiver
    /// The database the processes share, for the test's own reads.
    let books: any SQLDatabase

    var stub: StubAppStore { pipeline.stub }
    var intake: String { "http://127.0.0.1:\(pipeline.intakePort)" }

    /// Runs `body` with the two apps' pipeline up on `backend`.
    /// - Parameter extra: more settings for every stage.
    static func run(
        _ backend: TestBackend, environment extra: [String: String] = [:],
        _ body: (TenancyPipeline) async throws -> Void
    ) async throws {
        let puzzleSecret = WebhookSecret.generate()
        let racerSecret = WebhookSecret.generate()
        try await withWebhookReceiver(secret: puzzleSecret.encoded) { puzzleHook in
            try await withWebhookReceiver(secret: racerSecret.encoded) { racerHook in
                try await withDatabase(backend) { databaseEnvironment, postgres in
                    let directory = try TemporaryDirectory()
                    defer { directory.remove() }
                    let apps = directory.file("apps.yaml")
                    let racerPlay = directory.file("racer-play.json")
                    let puzzlePlay = directory.file("puzzle-play.json")
                    try """
                    apps:
                      - id: puzzle
                        api_tokens: [\(ProcessPipeline.token)]
                        webhook: { url: "\(puzzleHook.url)", secret: "\(puzzleSecret.encoded)" }
                        apple: { bundle_id: \(PipelineHarness.bundleID) }
                      - id: racer
                        api_tokens: [\(racerToken)]
                        webhook: { url: "\(racerHook.url)", secret: "\(racerSecret.encoded)" }
                        apple: { bundle_id: \(racerBundle), environment: Sandbox }
                        google_play:
                          package_names: [\(racerPackage)]
                          service_account: \(racerPlay)
                          push_audience: \(AppsEndToEndTests.racerPushAudience)
                          push_service_account: \(AppsEndToEndTests.racerPushAccount)
                        stripe: { api_key: \(racerStripeKey), webhook_secrets: [\(racerStripeSecret)] }
                        xiaomi: { app_id: "\(racerXiaomiAppID)", app_secret: racer-xiaomi-app-secret }
                        amazon: { package_name: \(racerAmazonPackage), shared_secret: \(StubAmazon.sharedSecret) }
                    """.write(toFile: apps, atomically: true, encoding: .utf8)
                    try await ProcessPipeline.run(
                        stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID),
                        environment: databaseEnvironment.merging(["IAP_APPS": apps]) { $1 }
                    ) { pipeline in
                        pipeline.stub.stripe.configuration.withLock { $0.otherAccountKeys = [racerStripeKey] }
                        let url = "http://127.0.0.1:\(pipeline.stubPort)"
                        for file in [racerPlay, puzzlePlay] {
                            try pipeline.stub.googlePlay.serviceAccountJSON(baseURL: url)
                                .write(to: URL(fileURLWithPath: file))
                        }
                        let root = pipeline.directory.file("stub-root.der")
                        try Data(pipeline.stub.storeKit.rootDER).write(to: URL(fileURLWithPath: root))
                        var stores = pipeline.stub.pluginStoreSettings(
                            baseURL: url, stripeWebhookSecrets: [puzzleStripeSecret]
                        ).values.reduce(into: [String: String]()) { $0.merge($1) { first, _ in first } }
                        stores.merge(
                            [
                                "IAP_APPLE_ROOT_CA": root, "IAP_APPSTORE_ENVIRONMENT": "Sandbox",
                                "IAP_GOOGLE_PLAY_API_URL": url + "/google",
                                "IAP_GOOGLE_CERTS_URL": url + StubGooglePlay.certsPath,
                                "IAP_GOOGLE_SERVICE_ACCOUNT": puzzlePlay,
                                "IAP_GOOGLE_PACKAGE_NAMES": PipelineHarness.googlePackage,
                                "IAP_GOOGLE_PUSH_AUDIENCE": AppsEndToEndTests.googlePushURL(pipeline),
                                "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT": StubGooglePlay.pushServiceAccount,
                                // The stub SNS's certificate: the stages run as the lab's (`iap-lab iap`).
                                IAPProcess.snsCertificatesVariable: url + "/amazon/sns/",
                            ]
                        ) { $1 }
                        stores.merge(extra) { $1 }
                        for stage in ["intake", "validator", "fulfiller", "notifier"] {
                            _ = try pipeline.start([stage], environment: stores)
                        }
                        #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))
                        let books: any SQLDatabase = try postgres ?? pipeline.database()
                        try await body(
                            TenancyPipeline(
                                pipeline: pipeline, puzzleHook: puzzleHook, racerHook: racerHook, books: books))
                    }
                }
            }
        }
    }

    /// The processes' database settings, and the test's own handle on PostgreSQL's (SQLite's
    /// file is ProcessPipeline's, opened once the processes made it).
    private static func withDatabase(
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

    // MARK: - Calls

    /// A call to the intake with an app's backend `token`: status and JSON body.
    func call(_ method: HTTPRequest.Method, _ path: String, token: String, body: [String: Any]? = nil) async throws
        -> (status: Int, json: [String: Any])
    {
        try await AppsEndToEndTests.call(pipeline, method, path, token: token, body: body)
    }

    /// `POST /v1/<store>/notifications` as the store sends it: no backend token.
    func notify(_ store: String, body: [UInt8], headers: [(name: String, value: String)] = []) async throws
        -> (status: Int, json: [String: Any])
    {
        let response = try await pipeline.client.execute(
            HTTPRequest(
                method: .post, url: "\(intake)/v1/\(store)/notifications",
                headers: [(name: "Content-Type", value: "application/json")] + headers, body: body,
                timeout: .seconds(10)))
        return (
            response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        )
    }

    /// An app's account as its backend reads it: its coins (0 for none) and entitlements.
    func coins(_ account: String, token: String) async throws -> Int {
        let read = try await call(.get, "/v1/accounts/\(account)", token: token)
        return (read.json["balances"] as? [String: Any])?["coins"] as? Int ?? 0
    }

    /// Waits until the receipt `id` is final as `token`'s app reads it; its JSON.
    func finalReceipt(_ id: String, token: String) async throws -> [String: Any] {
        _ = await eventually(timeout: .seconds(60)) {
            let read = try? await call(.get, "/v1/receipts/\(id)", token: token)
            return ["credited", "rejected", "dead"].contains(read?.json["status"] as? String ?? "")
        }
        return try await call(.get, "/v1/receipts/\(id)", token: token).json
    }

    /// Waits until the notification `id` is final; its row's details.
    func settledNotification(_ id: String) async throws -> NotificationDetails? {
        let store = NotificationRepository(books)
        _ = await eventually(timeout: .seconds(60)) {
            guard let status = try? await store.notification(id: id)?.status else { return false }
            return [.applied, .rejected, .dead].contains(status)
        }
        return try await store.notification(id: id)
    }

    /// The app a stored notification was kept under.
    func app(ofNotification id: String) async throws -> String? {
        try await books.snapshot { db in
            try await db.value("SELECT app FROM store_notifications WHERE id = ?", [id])
        }
    }

    /// How many notifications are stored.
    func storedNotifications() async throws -> Int {
        try await ReceiptRepository(books).notificationStatusCounts().values.reduce(0, +)
    }
}
