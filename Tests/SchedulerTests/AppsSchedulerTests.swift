import Broker
import Database
import Foundation
import Logging
import Pipeline
import PipelineCore
import PipelineTesting
import Repositories
import Scheduler
import SettlementWriter
import StubStore
import Testing

/// The subscription scheduler of a pipeline serving two apps (issue 30), as the fulfiller
/// stage composes it: each account's subscriptions are judged by its app's catalog, on the
/// real database, both backends.
@Suite struct AppsSchedulerTests {
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)
    /// The puzzle game (the default app): `vip` is a monthly subscription.
    static let puzzle = Catalog(products: [
        Product(productID: "com.example.vip.monthly", kind: .autoRenewable, entitlement: "vip")
    ])
    /// The racing game: `season` renews; its `vip` is a pass bought for a time, which does not.
    static let racer = Catalog(products: [
        Product(productID: "com.example.racer.season", kind: .autoRenewable, entitlement: "season"),
        Product(productID: "com.example.racer.vip", kind: .nonRenewing, entitlement: "vip"),
    ])

    @Test(arguments: TestBackend.allCases) func aSecondAppsSubscriptionsAreJudgedByItsOwnCatalog(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given player-1 of each app, every entitlement ending in ten hours: puzzle's vip
            // subscription; racer's season subscription and vip pass
            let end = Self.t0.addingTimeInterval(10 * 3600)
            let puzzleReceipt = NewReceipt.fixture(accountID: "player-1")
            let racerReceipt = NewReceipt.fixture(accountID: "racer/player-1")
            _ = try await IntakeRepository(database).accept([puzzleReceipt, racerReceipt], now: Self.t0)
            let catalogs = AppCatalogs(Self.puzzle, others: ["racer": Self.racer])
            let results = try await SettlementRepository(database).apply(
                [
                    .fixture(puzzleReceipt, [("t-puzzle-vip", "com.example.vip.monthly")], at: Self.t0, expires: end),
                    .fixture(
                        racerReceipt,
                        [("t-racer-season", "com.example.racer.season"), ("t-racer-vip", "com.example.racer.vip")],
                        at: Self.t0, expires: end),
                ], catalogs: catalogs, now: Self.t0)
            #expect(results.count == 2)

            // When the fulfiller stage's scheduler plans
            let scheduler = try #require(try Self.scheduler(database).first)
            await scheduler.tick(now: Self.t0)

            // Then each subscription by its app's catalog gets a check before and after its
            // expiry (racer's season unknown to puzzle's catalog among them), and racer's vip
            // pass none, though puzzle's vip renews
            let checks = SubscriptionRepository(database)
            for original in ["t-puzzle-vip", "t-racer-season"] {
                let planned = try await checks.subscriptionChecks(originalTransactionID: original)
                #expect(planned.map(\.phase) == ["before", "after"], "\(original): \(planned)")
            }
            let season = try await checks.subscriptionChecks(originalTransactionID: "t-racer-season")
            #expect(season.allSatisfy { $0.accountID == "racer/player-1" && $0.entitlement == "season" })
            #expect(try await checks.subscriptionChecks(originalTransactionID: "t-racer-vip").isEmpty)
        }
    }

    /// The scheduler of the fulfiller stage of puzzle (the default app) and racer.
    static func scheduler(_ database: any SQLDatabase) throws -> [SubscriptionScheduler] {
        let logger = Logger(label: "apps-scheduler")
        var parts = StageParts(
            topology: PipelineTopology(prefix: "apps-scheduler"), catalog: puzzle, stores: PluginStores.unconfigured,
            logger: { _ in logger })
        parts.apps = AppsParts(
            defaultApp: "puzzle", others: ["racer": .init(stores: PluginStores.unconfigured, catalog: racer)],
            identities: [:])
        return try FulfillerStage.services(
            parts, configuration: .init(elected: false), database: database,
            connection: AMQPConnection(configuration: AMQPConfiguration(), logger: logger)
        ).compactMap { $0 as? SubscriptionScheduler }
    }
}
