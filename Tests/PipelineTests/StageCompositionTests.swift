import AppStore
import AppleStore
import Broker
import DatabaseSQLite
import Foundation
import Fulfiller
import Intake
import Logging
import Notifier
import Pipeline
import PipelineCore
import PipelineTesting
import Scheduler
import ServiceLifecycle
import StubStore
import Testing
import Validator

@testable import EndToEndSupport

/// Each stage is composed in one place (`Pipeline/Stages`), for its own command and for
/// `iap up` alike: the parts a stage runs do not depend on how it is started, and none runs
/// twice in one process.
@Suite struct StageCompositionTests {
    let logger = Logger(label: "stage-composition")

    @Test func everyPartRunsOnceWhenOneProcessRunsEveryStage() async throws {
        // Given `iap up`'s pipeline with the App Store Server API, Apple's jobs, and the
        // plug-in stores against a stub
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let stub = StubAppStore(configuration: StubStoreConfiguration(bundleID: "com.example.game"))
        let url = "http://127.0.0.1:9"
        var configuration = LocalPipeline.Configuration(
            amqp: AMQPConfiguration(), topology: PipelineTopology(prefix: "composition"),
            catalog: Catalog(products: []),
            intake: IntakeConfiguration(port: 0, apiTokens: ["composition-token-0123"]),
            stores: try PluginStores.configured(PipelineHarness.pluginStoreEnvironment(stub, url: url))
                .with(PipelineHarness.googlePlayStore(stub, url: url, jobs: .init())),
            notifier: .init(webhookURL: nil, secret: WebhookSecret.generate()))
        configuration.stores.apple = AppleSetup(verifyReceipt: .init(bundleID: "com.example.game"))
        configuration.stores.apple?.serverAPIKey = try AppStoreServerAPIKey(
            privateKeyPEM: StubServerAPIConfiguration.developmentPrivateKeyPEM,
            keyID: StubServerAPIConfiguration.developmentKeyID,
            issuerID: StubServerAPIConfiguration.developmentIssuerID, bundleID: "com.example.game")
        configuration.stores.appleJobs?.reconcileInterval = .seconds(3600)
        configuration.stores.appleJobs?.answersConsumption = true

        // When it is composed
        let services = try LocalPipeline(configuration: configuration, database: database, logger: logger).services
        let names = services.map { String(describing: type(of: $0)) }

        // Then each part runs once: the app account tokens owed Apple are paid by the one
        // StoreConfirmer, as every store's confirmations (they were set twice when `iap up`
        // composed Apple's jobs beside the pipeline's own)
        for part in [
            "Fulfiller", "SubscriptionScheduler", "Validator", "Notifier", "StoreConfirmer",
            "GoogleVoidedPoller", "GoogleRefundReviewAnswerer", "Relay", "NotificationPruner",
        ] {
            #expect(names.filter { $0 == part }.count == 1, "\(part) in \(names)")
        }
        // And Apple's scheduled jobs are reconciliation and the consumption answers
        #expect(names.filter { $0 == "AppleJobService" }.count == 2, "\(names)")
        // And every stage's HTTP client is listed before what uses it, so it closes after them
        let clients = names.indices.filter { names[$0] == "HTTPClientService" }
        #expect(clients.count == 3, "\(names)")
        for user in ["Validator", "Notifier", "StoreConfirmer"] {
            let index = try #require(names.firstIndex(of: user))
            #expect(clients.contains { $0 < index }, "\(user) in \(names)")
        }
        // And the API is the last service, so it stops taking receipts first
        #expect(names.last?.hasPrefix("Application") == true, "\(names)")
    }

    @Test func aFulfillerThatCallsNoStoreOpensNoHTTPClient() async throws {
        // Given a fulfiller without the Server API (Apple as an empty environment leaves it)
        // and with no plug-in store that calls its store
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let parts = StageParts(
            topology: PipelineTopology(prefix: "composition"), catalog: Catalog(products: []),
            stores: PluginStores.unconfigured, logger: { _ in logger })

        // When its stage is composed
        let services = try FulfillerStage.services(
            parts, configuration: .init(), database: database,
            connection: AMQPConnection(configuration: AMQPConfiguration(), logger: logger))

        // Then it runs the fulfiller and the scheduler, and nothing that would call a store
        #expect(services.map { String(describing: type(of: $0)) } == ["Fulfiller", "SubscriptionScheduler"])
    }
}
