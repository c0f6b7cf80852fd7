import AppStore
import Broker
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import StubStore
import Testing

@testable import AppleStore
@testable import EndToEndSupport
@testable import GooglePlay
@testable import Pipeline

/// The fulfiller's store jobs once per app (issue 30), composed as `iap fulfiller` composes
/// them over PostgreSQL, where jobs are elected: each app's Google voided poll reads its own
/// packages within its own budgets, and each app's jobs (Google's, Apple's reconciliation
/// and consumption answers) are elected under their own names, so both apps' lead at once,
/// while the default app's keep today's names (`google-voided`, `reconciliation`).
@Suite struct AppsFulfillerJobsTests {
    let logger = Logger(label: "apps-fulfiller-jobs")

    @Test func eachAppsStoreJobsRunWithItsOwnSettingsElectedUnderTheirOwnNames() async throws {
        let stub = StubAppStore(configuration: StubStoreConfiguration(bundleID: "com.example.game"))
        let url = "http://127.0.0.1:9"
        let stores = try PluginStores.configured(PipelineHarness.pluginStoreEnvironment(stub, url: url))
        // Each app with its App Store Server API key, for its bundle id.
        func apple(_ bundleID: String) throws -> AppleStore {
            var setup = try #require(stores.apple)
            setup.serverAPIKey = try AppStoreServerAPIKey(
                privateKeyPEM: StubServerAPIConfiguration.developmentPrivateKeyPEM,
                keyID: StubServerAPIConfiguration.developmentKeyID,
                issuerID: StubServerAPIConfiguration.developmentIssuerID, bundleID: bundleID)
            var jobs = AppleJobs()
            jobs.reconcileInterval = .seconds(3600)
            jobs.answersConsumption = true
            return AppleStore(setup: setup, jobs: jobs)
        }
        let puzzle = stores.with(try PipelineHarness.googlePlayStore(stub, url: url, jobs: .init()))
            .with(try apple(PipelineHarness.bundleID))
        let racer = stores.with(try apple(AppsEndToEndTests.racerBundle)).with(
            GooglePlayStore(
                setup: GooglePlaySetup(
                    account: try GoogleServiceAccount(
                        json: stub.googlePlay.serviceAccountJSON(baseURL: url, account: "racer")),
                    apiURL: url + "/google", packageNames: [AppsEndToEndTests.racerPackage]),
                jobs: .init()))
        var parts = StageParts(
            topology: PipelineTopology(prefix: "apps-jobs"), catalog: Catalog(products: []), stores: puzzle,
            logger: { [logger] _ in logger })
        parts.apps = AppsParts(
            defaultApp: "puzzle", others: ["racer": .init(stores: racer, catalog: Catalog(products: []))],
            identities: [PipelineHarness.googlePackage: "puzzle", AppsEndToEndTests.racerPackage: "racer"])

        try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            // When the fulfiller is composed
            let services = try FulfillerStage.services(
                parts, configuration: FulfillerStage.Configuration(), database: database,
                connection: AMQPConnection(configuration: AMQPConfiguration(), logger: logger))

            // Then each app has its voided poll and its refund-review answers, one confirmer
            // paying both
            let names = services.map { String(describing: type(of: $0)) }
            #expect(names.filter { $0 == "StoreConfirmer" }.count == 1, "\(names)")
            #expect(names.filter { $0 == "GoogleRefundReviewAnswerer" }.count == 2, "\(names)")
            let polls = services.compactMap { $0 as? GoogleVoidedPoller }
            #expect(polls.map(\.packageNames) == [[PipelineHarness.googlePackage], [AppsEndToEndTests.racerPackage]])

            // And the racing game's calls are booked in its own budgets, the default app's in today's
            #expect(polls[0].client.budgets is MeteredCallBudgets)
            #expect((polls[1].client.budgets as? AppCallBudgets)?.prefix == "racer/")

            // And both lead at once, each under its own name: the default app's under today's,
            // which another fulfiller of today's release contends for
            #expect(await polls[0].leadership.isLeader())
            #expect(await polls[1].leadership.isLeader())
            #expect(await !database.leadership(of: "google-voided").isLeader())
            #expect(await !database.leadership(of: "google-voided/racer").isLeader())
            #expect(await database.leadership(of: "google-voided/puzzle").isLeader())
            for poll in polls { await poll.leadership.resign() }

            // And Apple's jobs run for each app, the racing game's elected under its own names
            let apple = services.compactMap { $0 as? AppleJobService }
            #expect(
                apple.map(\.name) == [
                    "reconciliation", "consumption answers", "reconciliation", "consumption answers",
                ])
            for job in apple { #expect(await job.leadership.isLeader(), "\(job.name)") }
            for name in ["reconciliation", "consumption-answers", "reconciliation/racer", "consumption-answers/racer"] {
                #expect(await !database.leadership(of: name).isLeader(), "\(name)")
            }
            for job in apple { await job.leadership.resign() }
        }
    }
}
