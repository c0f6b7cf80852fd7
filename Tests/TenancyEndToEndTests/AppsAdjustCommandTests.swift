import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// `iap account adjust|entitle --app` across two apps (issue 30), on both backends: the
/// account is that app's and its catalog checks the currency or entitlement; what the
/// app's catalog lacks, an unknown app, or a stored id with `--app` is refused by name and
/// changes nothing.
@Suite struct AppsAdjustCommandTests {
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    @Test(arguments: TestBackend.allCases) func anAppsAccountIsAdjustedByItsOwnCatalog(_ backend: TestBackend)
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Puzzle (the default app) sells coins and vip; racer sells gems and a season pass.
        let puzzleCatalog = directory.file("puzzle.json")
        try """
        {"products": [{"product_id": "com.example.coins100", "type": "consumable", "grant": {"currency": "coins", "amount": 100}},
                      {"product_id": "com.example.vip.monthly", "type": "auto_renewable", "entitlement": "vip"}]}
        """.write(toFile: puzzleCatalog, atomically: true, encoding: .utf8)
        let racerCatalog = directory.file("racer.json")
        try """
        {"products": [{"product_id": "com.example.gems10", "type": "consumable", "grant": {"currency": "gems", "amount": 10}},
                      {"product_id": "com.example.racer.season", "type": "auto_renewable", "entitlement": "season"}]}
        """.write(toFile: racerCatalog, atomically: true, encoding: .utf8)
        let apps = directory.file("apps.yaml")
        try """
        apps:
          - id: puzzle
            api_tokens: [puzzle-backend-token-0001]
            catalog: \(puzzleCatalog)
          - id: racer
            api_tokens: [\(AppsEndToEndTests.racerToken)]
            catalog: \(racerCatalog)
        """.write(toFile: apps, atomically: true, encoding: .utf8)
        let catalogs = AppCatalogs(
            try Catalog.load(path: puzzleCatalog), others: ["racer": try Catalog.load(path: racerCatalog)])

        try await Self.withDatabase(backend, in: directory) { database, databaseEnvironment in
            // Given player-1 in each app: 100 coins in puzzle, 10 gems in racer
            try await Self.credit(database, catalogs: catalogs)
            let env = databaseEnvironment.merging(["IAP_APPS": apps, "USER": "alice"]) { $1 }
            func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
                let outcome = try await IAPProcess.run(arguments, environment: env)
                return (outcome.status, outcome.output)
            }
            func balances(_ account: String) async throws -> [String: Int] {
                try await LedgerRepository(database).account(id: account)?.balances ?? [:]
            }

            // When racer's player-1 is granted gems and a season pass, by racer's catalog
            let granted = try await run([
                "account", "adjust", "player-1", "--app", "racer", "--currency", "gems", "--amount", "5",
                "--reason", "goodwill", "--json",
            ])
            #expect(granted.status == 0, "\(granted.output)")
            let answer = try JSONSerialization.jsonObject(with: Data(granted.output.utf8)) as? [String: Any]
            #expect(answer?["account_id"] as? String == "racer/player-1" && answer?["balance"] as? Int == 15)
            let season = try await run([
                "account", "entitle", "player-1", "--app", "racer", "--entitlement", "season", "--until",
                "2030-01-01", "--reason", "outage",
            ])
            #expect(season.status == 0 && season.output.contains("granted season"), "\(season.output)")
            // And puzzle's player-1, without --app or with it, by puzzle's; either by its
            // name across apps too
            for (account, arguments) in [
                ("player-1", []), ("player-1", ["--app", "puzzle"]), ("puzzle/player-1", []), ("racer/player-1", []),
            ] {
                let currency = account.hasPrefix("racer/") ? "gems" : "coins"
                let adjusted = try await run(
                    ["account", "adjust", account, "--currency", currency, "--amount", "1", "--reason", "goodwill"]
                        + arguments)
                #expect(adjusted.status == 0 && adjusted.output.contains("granted 1 \(currency)"), "\(adjusted.output)")
            }

            // Then what racer's catalog lacks is refused naming the app, an unknown app by
            // name, and a stored id with --app; none changes anything
            let adjust = ["account", "adjust", "player-1", "--reason", "x"]
            for (arguments, message) in [
                (
                    adjust + ["--app", "racer", "--currency", "coins", "--amount", "5"],
                    "refused, nothing changed: no product grants the currency 'coins' (known: gems) (app racer)"
                ),
                (
                    [
                        "account", "entitle", "player-1", "--app", "racer", "--entitlement", "vip", "--until",
                        "2030-01-01", "--reason", "x",
                    ],
                    "(app racer)"
                ),
                (
                    ["account", "adjust", "racer/player-1", "--currency", "coins", "--amount", "5", "--reason", "x"],
                    "no product grants the currency 'coins' (known: gems) (app racer)"
                ),
                (
                    adjust + ["--app", "chess", "--currency", "gems", "--amount", "5"],
                    "--app: no app 'chess' in IAP_APPS (apps: puzzle, racer)"
                ),
                (
                    [
                        "account", "adjust", "racer/player-1", "--app", "racer", "--currency", "gems", "--amount", "5",
                        "--reason", "x",
                    ],
                    "with --app, give the account as app racer knows it, without '/'"
                ),
            ] {
                let refused = try await run(arguments)
                #expect(refused.status != 0 && refused.output.contains(message), "\(arguments): \(refused.output)")
            }
            #expect(try await balances("racer/player-1") == ["gems": 16])
            #expect(try await balances("player-1") == ["coins": 103])
            #expect(try await AdjustmentRepository(database).adjustments(of: "racer/player-1").count == 3)
            #expect(try await AdjustmentRepository(database).adjustments(of: "player-1").count == 3)
            let entitlements = try await LedgerRepository(database).account(id: "racer/player-1")?.entitlements
            #expect(entitlements?.map(\.name) == ["season"], "\(String(describing: entitlements))")
            let audit = try await run(["audit"])
            #expect(audit.status == 0 && audit.output.contains("racer: clean"), "\(audit.output)")
        }
    }

    /// player-1 of puzzle credited 100 coins, racer's 10 gems, as the fulfiller would.
    static func credit(_ database: any SQLDatabase, catalogs: AppCatalogs) async throws {
        let receipts = [("player-1", "com.example.coins100"), ("racer/player-1", "com.example.gems10")].map {
            account, product in (NewReceipt.fixture(accountID: account), product)
        }
        _ = try await IntakeRepository(database).accept(receipts.map(\.0), now: t0)
        let results = try await SettlementRepository(database).apply(
            receipts.map { receipt, product in .fixture(receipt, [("t-\(receipt.id)", product)], at: t0) },
            catalogs: catalogs, now: t0)
        #expect(results.count == 2)
    }

    /// The test's database and how the `iap` processes find it: a SQLite file in
    /// `directory`, or a fresh database on the test PostgreSQL server.
    static func withDatabase(
        _ backend: TestBackend, in directory: TemporaryDirectory,
        _ body: (any SQLDatabase, [String: String]) async throws -> Void
    ) async throws {
        switch backend {
        case .sqlite:
            let path = directory.file("pipeline.sqlite")
            try await body(try SQLiteDatabase(path: path), ["IAP_DB_PATH": path])
        case .postgres:
            try await PostgresFixture.withDatabase { database in
                try await database.migrate()
                try await body(database, ["IAP_DATABASE_URL": PostgresFixture.url(of: database.location.database)])
            }
        }
    }
}
