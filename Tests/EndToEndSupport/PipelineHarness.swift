import AppStore
import AppleStore
import Broker
import Console
import Database
import DatabaseSQLite
import Foundation
import GooglePlay
import HTTPClient
import Hummingbird
import Intake
import Logging
import Notifier
import Pipeline
import PipelineCore
import PipelineTesting
import Repositories
import Scheduler
import ServiceLifecycle
import SettlementWriter
import StubStore
import Synchronization
import Validator

/// The whole pipeline in this process against the real broker, a real database (a SQLite
/// file, or a fresh database on the test PostgreSQL server), the stub store over HTTP and a
/// webhook receiver: what a backend and Apple would see.
final class PipelineHarness: Sendable {
    static let token = "e2e-token-0123456789abcdef"
    static let bundleID = "com.example.game"
    static let googlePackage = "com.example.game"
    static let catalog = Catalog(products: [
        Product(
            productID: "com.example.coins100", kind: .consumable, grant: Grant(currency: "coins", amount: 100),
            prices: ["CNY": 600]),
        Product(productID: "com.example.coins500", kind: .consumable, grant: Grant(currency: "coins", amount: 500)),
        Product(productID: "com.example.vip.monthly", kind: .autoRenewable, entitlement: "vip"),
    ])

    let stub: StubAppStore
    let stubPort: Int
    let receiver: WebhookReceiver
    let database: any SQLDatabase
    let intakePort: Int
    let topology: PipelineTopology
    let broker: BrokerFixture
    let client: CurlHTTPClient
    /// How an `iap` process a test runs beside the pipeline finds its database
    /// (`IAP_DB_PATH` or `IAP_DATABASE_URL`).
    let databaseEnvironment: [String: String]

    init(
        stub: StubAppStore, stubPort: Int, receiver: WebhookReceiver, database: any SQLDatabase, intakePort: Int,
        topology: PipelineTopology, broker: BrokerFixture, client: CurlHTTPClient,
        databaseEnvironment: [String: String]
    ) {
        self.stub = stub
        self.stubPort = stubPort
        self.receiver = receiver
        self.database = database
        self.intakePort = intakePort
        self.topology = topology
        self.broker = broker
        self.client = client
        self.databaseEnvironment = databaseEnvironment
    }

    /// Runs `body` against a fresh pipeline on `backend`, then shuts it down gracefully.
    static func run(
        _ backend: TestBackend = .sqlite,
        stub stubConfiguration: StubStoreConfiguration = StubStoreConfiguration(bundleID: bundleID),
        maxAttempts: Int = 6, runsValidator: Bool = true, confirmsWithServerAPI: Bool = false,
        scheduler: SubscriptionScheduler.Configuration = .init(),
        console: ConsoleConfiguration? = nil, receiptVerification: ReceiptVerificationMode = .apple,
        catalog: Catalog = PipelineHarness.catalog, pluginStores: Bool = false,
        _ body: (PipelineHarness) async throws -> Void
    ) async throws {
        try await withDatabase(backend) { database, databaseEnvironment in
            try await run(
                database: database, databaseEnvironment: databaseEnvironment, stub: stubConfiguration,
                maxAttempts: maxAttempts, runsValidator: runsValidator, confirmsWithServerAPI: confirmsWithServerAPI,
                scheduler: scheduler, console: console, receiptVerification: receiptVerification, catalog: catalog,
                pluginStores: pluginStores, body)
        }
    }

    /// A fresh, migrated database of `backend`, and how a process beside the test finds it.
    private static func withDatabase(
        _ backend: TestBackend, _ body: (any SQLDatabase, [String: String]) async throws -> Void
    ) async throws {
        switch backend {
        case .sqlite:
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let path = directory.file("iap.sqlite")
            try await body(try SQLiteDatabase(path: path), ["IAP_DB_PATH": path])
        case .postgres:
            try await PostgresFixture.withDatabase(connections: 4) { database in
                try await database.migrate()
                try await body(database, ["IAP_DATABASE_URL": PostgresFixture.url(of: database.location.database)])
            }
        }
    }

    static func run(
        database: any SQLDatabase, databaseEnvironment: [String: String],
        stub stubConfiguration: StubStoreConfiguration,
        maxAttempts: Int, runsValidator: Bool, confirmsWithServerAPI: Bool,
        scheduler: SubscriptionScheduler.Configuration, console: ConsoleConfiguration?,
        receiptVerification: ReceiptVerificationMode, catalog: Catalog, pluginStores: Bool,
        _ body: (PipelineHarness) async throws -> Void
    ) async throws {
        let broker = BrokerFixture(label: "e2e")
        let topology = broker.pipelineTopology(retryDelays: [.seconds(1), .seconds(1), .seconds(2)])
        let stub = StubAppStore(configuration: stubConfiguration)
        let secret = WebhookSecret.generate()
        var logger = Logger(label: "e2e")
        logger.logLevel = .warning

        try await withWebhookReceiver(secret: secret.encoded) { receiver in
            try await withThrowingTaskGroup(of: Void.self) { group in
                let stubPort = Ports()
                let stubServer = RunningService(
                    makeStubStoreApplication(store: stub, port: 0) { await stubPort.set($0) })
                let stubURL = "http://127.0.0.1:\(await stubPort.value)"
                let intakePort = Ports()
                var configuration = LocalPipeline.Configuration(
                    amqp: broker.configuration, topology: topology, catalog: catalog,
                    intake: intakeConfiguration(stubURL: stubURL),
                    // A publish slower than the grace is published again (at least once, by
                    // design); on a loaded machine a 2 s grace did that, and tests that count
                    // the stub's answers saw a receipt verified twice. RelayTests cover the sweep.
                    relay: .init(sweepInterval: .milliseconds(500), sweepGrace: .seconds(15)),
                    // Huawei and Stripe configured from their variables, pointing at the stub; else
                    // known and off, as in a deployment that does not set them.
                    stores: try PluginStores.configured(
                        pluginStores ? pluginStoreEnvironment(stub, url: stubURL) : EnvironmentReader([:])
                    ).with(googlePlayStore(stub, url: stubURL)),
                    validator: .init(concurrency: 64, retryPolicy: RetryPolicy(maxAttempts: maxAttempts)),
                    fulfiller: .init(batchSize: 128),
                    notifier: .init(
                        webhookURL: receiver.url, secret: secret, pollInterval: .milliseconds(50),
                        schedule: RetrySchedule(delays: [.milliseconds(100)], maxAttempts: 10, jitter: 0)))
                configuration.runsValidator = runsValidator
                // Apple at the stub, running none of its jobs (the tests of them ask for them).
                configuration.stores.apple = AppleSetup(
                    verifyReceipt: .init(
                        bundleID: bundleID, productionURL: "\(stubURL)/verifyReceipt",
                        sandboxURL: "\(stubURL)/sandbox/verifyReceipt", requestTimeout: .seconds(2)),
                    signedData: try SignedDataVerifier(
                        rootCertificates: [stub.storeKit.rootDER], bundleID: bundleID, appAppleID: nil,
                        environment: .sandbox))
                configuration.stores.appleJobs = AppleJobs()
                configuration.stores.apple?.receiptVerification = receiptVerification
                if receiptVerification != .apple {
                    // Local checks trust the stub's receipt root, as `iap up` configures them.
                    configuration.stores.apple?.appReceipt = .init(
                        rootCertificates: [stub.receiptAuthority.rootDER], bundleID: bundleID)
                }
                configuration.scheduler = scheduler
                configuration.console = console
                configuration.fulfillment.storeConfirmer.interval = .milliseconds(100)
                configuration.fulfillment.storeConfirmer.initialBackoff = 0.2
                if confirmsWithServerAPI {
                    configuration.stores.apple?.serverAPIKey = try AppStoreServerAPIKey(
                        privateKeyPEM: StubServerAPIConfiguration.developmentPrivateKeyPEM,
                        keyID: StubServerAPIConfiguration.developmentKeyID,
                        issuerID: StubServerAPIConfiguration.developmentIssuerID, bundleID: bundleID)
                    configuration.stores.apple?.serverAPI = .init(
                        productionBaseURL: stubURL, sandboxBaseURL: "\(stubURL)/sandbox")
                }
                let pipeline = try LocalPipeline(
                    configuration: configuration, database: database, logger: logger,
                    onIntakeRunning: { await intakePort.set($0) })
                let services = ServiceGroup(
                    configuration: .init(services: pipeline.services.map { .init(service: $0) }, logger: logger))
                let running = Task { try await services.run() }
                let harness = PipelineHarness(
                    stub: stub, stubPort: await stubPort.value, receiver: receiver, database: database,
                    intakePort: await intakePort.value, topology: topology, broker: broker,
                    client: try CurlHTTPClient(), databaseEnvironment: databaseEnvironment)
                // Stops the pipeline the way SIGTERM would, then the stub store ("Apple").
                func stop() async {
                    await services.triggerGracefulShutdown()
                    _ = await running.result
                    await harness.client.shutdown()
                    await stubServer.stop()
                    group.cancelAll()
                }
                do {
                    try await body(harness)
                } catch {
                    await stop()
                    throw error
                }
                await stop()
                try? await group.waitForAll()
            }
        }
        let cleaner = try await broker.connect()
        // `iap` processes a test ran against this prefix (dlq, validators) declared the
        // default retry tiers too: delete those with the rest.
        let declared = topology.topology
        let defaults = PipelineTopology(prefix: topology.prefix).topology
        let extra = defaults.queues.filter { queue in !declared.queues.contains { $0.name == queue.name } }
        await broker.cleanUp(
            Topology(exchanges: declared.exchanges, queues: declared.queues + extra, bindings: []), cleaner)
    }

    /// Google Play as the stub speaks it: its service account, its API, the test app.
    static func googlePlaySetup(_ stub: StubAppStore, url: String) throws -> GooglePlaySetup {
        GooglePlaySetup(
            account: try GoogleServiceAccount(json: stub.googlePlay.serviceAccountJSON(baseURL: url)),
            apiURL: url + "/google", packageNames: [googlePackage])
    }

    func googlePlaySetup() throws -> GooglePlaySetup {
        try Self.googlePlaySetup(stub, url: "http://127.0.0.1:\(stubPort)")
    }

    // MARK: - What a backend does

    /// Mints a receipt the stub store will vouch for.
    func receipt(
        transactions: [(id: String, product: String)], environment: StubReceipt.Environment = .production,
        bundleID: String = PipelineHarness.bundleID, failFirst: Int? = nil, transientUntil: Date? = nil
    ) -> String {
        stub.issue(
            StubReceipt(
                bundleID: bundleID, environment: environment,
                transactions: transactions.map { StubReceipt.Transaction(transactionID: $0.id, productID: $0.product) },
                failFirst: failFirst, transientUntil: transientUntil))
    }

    /// `POST /v1/receipts`; returns the status code and the receipt id.
    func submit(account: String, receiptData: String, idempotencyKey: String? = nil) async throws -> (Int, String?) {
        let (status, json) = try await post(
            "/v1/receipts", ["account_id": account, "receipt_data": receiptData],
            headers: idempotencyKey.map { [(name: "Idempotency-Key", value: $0)] } ?? [])
        return (status, json["receipt_id"] as? String)
    }

    /// `POST /v1/receipts` with a StoreKit 2 signed transaction.
    func submit(account: String, signedTransaction: String, orderID: String? = nil) async throws -> (Int, String?) {
        var body = ["account_id": account, "signed_transaction": signedTransaction]
        body["order_id"] = orderID
        let (status, json) = try await post("/v1/receipts", body)
        return (status, json["receipt_id"] as? String)
    }

    /// `POST` a JSON object to the intake with the backend's token; the status and the answer.
    func post(
        _ path: String, _ object: [String: Any], headers extra: [(name: String, value: String)] = []
    ) async throws -> (Int, [String: Any]) {
        let response = try await postResponse(path, object, headers: extra)
        return (
            response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        )
    }

    /// The same `POST`, answered as it came (its headers too).
    func postResponse(
        _ path: String, _ object: [String: Any], headers extra: [(name: String, value: String)] = []
    ) async throws -> HTTPClient.HTTPResponse {
        try await client.execute(
            HTTPClient.HTTPRequest(
                method: .post, url: "http://127.0.0.1:\(intakePort)\(path)",
                headers: [
                    (name: "Authorization", value: "Bearer \(Self.token)"),
                    (name: "Content-Type", value: "application/json"),
                ]
                    + extra,
                body: Array(try JSONSerialization.data(withJSONObject: object))))
    }

    var notificationURL: String { "http://127.0.0.1:\(intakePort)/v1/apple/notifications" }

    /// Waits until every notification row is final; returns how many there are.
    func notificationsSettled(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await eventually(timeout: timeout, every: .milliseconds(100)) {
            guard let pending = try? await IntakeRepository(database).unpublished(limit: 100) else { return false }
            let applied = try? await ReceiptRepository(database).notificationStatusCounts()[.applied, default: 0]
            return pending.isEmpty && applied == count
        }
    }

    /// `GET` with the backend's token; the status and the answer as JSON.
    func get(_ path: String) async throws -> (Int, [String: Any]) {
        let response = try await client.execute(
            HTTPClient.HTTPRequest(
                url: "http://127.0.0.1:\(intakePort)\(path)",
                headers: [(name: "Authorization", value: "Bearer \(Self.token)")]))
        return (
            response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        )
    }

    /// `GET /v1/receipts/{id}` as JSON.
    func status(_ receiptID: String) async throws -> [String: Any] {
        try await get("/v1/receipts/\(receiptID)").1
    }

    /// Waits until the receipt reaches a final status and returns it.
    func finalStatus(_ receiptID: String, timeout: Duration = .seconds(30)) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        _ = await eventually(timeout: timeout, every: .milliseconds(100)) {
            last = (try? await status(receiptID)) ?? [:]
            return ["credited", "rejected", "dead"].contains(last["status"] as? String ?? "")
        }
        return last
    }

    func balance(_ account: String, _ currency: String = "coins") async throws -> Int {
        try await LedgerRepository(database).account(id: account)?.balances[currency] ?? 0
    }

    /// The webhooks accepted for a receipt, parsed.
    func webhooks(for receiptID: String) -> [[String: Any]] {
        receiver.accepted.compactMap { delivery in
            guard let json = try? JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any],
                json["receipt_id"] as? String == receiptID
            else { return nil }
            return json
        }
    }
}

/// A value learned once, awaited by others (a bound port).
actor Ports {
    private var port: Int?
    private var waiters: [CheckedContinuation<Int, Never>] = []

    func set(_ value: Int) {
        port = value
        for waiter in waiters { waiter.resume(returning: value) }
        waiters.removeAll()
    }

    var value: Int {
        get async {
            if let port { return port }
            return await withCheckedContinuation { waiters.append($0) }
        }
    }
}
