import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// The operator's commands across the apps of one pipeline (issue 30): `--app` keeps to one
/// app's rows, every app's are named `<app>/<account>`, an unknown app is refused by name,
/// and `iap audit` says per app whether its books are clean, on both backends.
@Suite struct AppsOperatorCommandsTests {
    @Test(arguments: TestBackend.allCases) func commandsFilterByAppAndAuditEachApp(_ backend: TestBackend)
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let apps = try Self.writeApps(in: directory)
        try await Self.withDatabase(backend) { database, databaseEnvironment in
            try await ProcessPipeline.run(
                stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID),
                environment: databaseEnvironment.merging([
                    "IAP_APPS": apps, "IAP_CONSOLE_OPERATORS": "alice:\(LiveConsole.secret)",
                ]) { $1 }
            ) { pipeline in
                let books = try database ?? pipeline.database()
                try await Self.givenPlayerOneCreditedInBothApps(pipeline, books)
                try await Self.checkConsole(pipeline)
                try await Self.checkCommands(pipeline.environment, books)
            }
        }
    }

    @Test func receiptInspectChecksTheBundleIDOfTheAppNamed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let apps = directory.file("apps.yaml")
        try """
        apps:
          - id: weeka
            api_tokens: [weeka-backend-token-00001]
            apple: { bundle_id: dev.bonzer.weeka.app }
          - id: racer
            api_tokens: [\(AppsEndToEndTests.racerToken)]
            apple: { bundle_id: com.example.racer }
          - id: web
            api_tokens: [web-backend-token-000001]
        """.write(toFile: apps, atomically: true, encoding: .utf8)
        // One of Apple's receipt vectors (AppStoreTests'), as ReceiptCommandTests reads them.
        let receipt = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../AppStoreTests/AppReceipt/Vectors/TPInAppReceipt/receipt-sandbox-g5")
            .standardizedFileURL.path
        func inspect(_ options: [String]) async throws -> (status: Int32, output: String) {
            let run = try await IAPProcess.run(
                ["receipt", "inspect", receipt] + options, environment: ["IAP_APPS": apps])
            return (run.status, run.output)
        }
        let own = try await inspect(["--app", "weeka"])
        #expect(own.status == 0 && own.output.contains("verdict       valid"), "\(own.output)")
        let other = try await inspect(["--app", "racer"])
        #expect(other.status == 1 && other.output.contains("bundle_mismatch"), "\(other.output)")
        for (options, message) in [
            (["--app", "chess"], "no app 'chess' in IAP_APPS (apps: weeka, racer, web)"),
            (["--app", "web"], "app web has no apple.bundle_id"),
            (["--app", "weeka", "--bundle-id", "dev.bonzer.weeka.app"], "give --app or --bundle-id, not both"),
        ] {
            let refused = try await inspect(options)
            #expect(refused.status != 0 && refused.output.contains(message), "\(options): \(refused.output)")
        }
    }

    /// player-1 credited 100 coins in puzzle (the default app) and 500 in racer, and a dead
    /// letter of each.
    static func givenPlayerOneCreditedInBothApps(
        _ pipeline: ProcessPipeline, _ database: any SQLDatabase,
        stages: [[String]] = [["intake"], ["validator"], ["fulfiller"]]
    ) async throws {
        for stage in stages { _ = try pipeline.start(stage) }
        #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))
        var receipts: [(token: String, id: String)] = []
        for (token, transaction, product) in [
            (ProcessPipeline.token, "ops-puzzle-1", "com.example.coins100"),
            (AppsEndToEndTests.racerToken, "ops-racer-1", "com.example.coins500"),
        ] {
            let posted = try await AppsEndToEndTests.call(
                pipeline, .post, "/v1/receipts", token: token,
                body: [
                    "account_id": "player-1",
                    "receipt_data": pipeline.receipt(transaction: transaction, product: product),
                ])
            receipts.append((token, try #require(posted.json["receipt_id"] as? String, "\(posted.json)")))
        }
        for (token, id) in receipts {
            let credited = await eventually(timeout: .seconds(60)) {
                let status = try? await AppsEndToEndTests.call(pipeline, .get, "/v1/receipts/\(id)", token: token)
                return status?.json["status"] as? String == "credited"
            }
            #expect(credited, "receipt \(id) not credited: \(pipeline.logs().suffix(2000))")
        }
        let now = Date()
        let letters = [("dl_ops_puzzle", "player-1"), ("dl_ops_racer", "racer/player-1")].map { id, account in
            DeadLetter(
                id: id, receiptID: nil, accountID: account, reason: "ops test", attempts: 1, lastError: nil,
                sourceQueue: nil, body: Data("{}".utf8), headers: "{}", deadAt: now, createdAt: now)
        }
        _ = try await DeadLetterRepository(database).archive(letters, catalog: PipelineHarness.catalog, now: now)
    }

    static func checkCommands(_ env: [String: String], _ database: any SQLDatabase) async throws {
        func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            let outcome = try await IAPProcess.run(arguments, environment: env)
            return (outcome.status, outcome.output)
        }
        func accounts(_ arguments: [String], key: String? = nil) async throws -> [String] {
            let listed = try await run(arguments + ["--json"])
            #expect(listed.status == 0, "\(arguments): \(listed.output)")
            let json = try JSONSerialization.jsonObject(with: Data(listed.output.utf8))
            let rows: [[String: Any]] =
                if let key { (json as? [String: Any])?[key] as? [[String: Any]] ?? [] } else {
                    json as? [[String: Any]] ?? []
                }
            return rows.compactMap { $0["account_id"] as? String }.sorted()
        }

        // Webhooks and dead letters: one app's rows in its backend's ids, or every app's named.
        #expect(try await accounts(["webhooks", "list", "--app", "racer"]) == ["player-1"])
        #expect(try await accounts(["webhooks", "list", "--app", "puzzle"]) == ["player-1"])
        #expect(try await accounts(["webhooks", "list"]) == ["puzzle/player-1", "racer/player-1"])
        #expect(try await accounts(["dlq", "list", "--app", "racer"], key: "letters") == ["player-1"])
        #expect(try await accounts(["dlq", "list"], key: "letters") == ["puzzle/player-1", "racer/player-1"])
        let otherLetter = try await run(["dlq", "show", "dl_ops_puzzle", "--app", "racer"])
        #expect(otherLetter.status != 0 && otherLetter.output.contains("in app racer"), "\(otherLetter.output)")

        // An account: in one app, or the player found in every app.
        let racer = try await run(["account", "show", "player-1", "--app", "racer"])
        #expect(racer.status == 0 && racer.output.contains("balances: coins 500"), "\(racer.output)")
        let everywhere = try await run(["account", "show", "player-1"])
        #expect(everywhere.output.contains("account puzzle/player-1"), "\(everywhere.output)")
        #expect(everywhere.output.contains("balances: coins 100"), "\(everywhere.output)")
        #expect(everywhere.output.contains("also in other apps: racer/player-1"), "\(everywhere.output)")
        let named = try await run(["account", "show", "racer/player-1"])
        #expect(named.status == 0 && named.output.contains("balances: coins 500"), "\(named.output)")

        // An app the file does not list is refused by name.
        for arguments in [["webhooks", "list"], ["dlq", "list"], ["account", "show", "player-1"], ["audit"]] {
            let refused = try await run(arguments + ["--app", "chess"])
            #expect(refused.status != 0 && refused.output.contains("no app 'chess' in IAP_APPS"), "\(refused.output)")
        }

        // The audit: clean for each app and for all.
        let clean = try await run(["audit"])
        #expect(clean.status == 0 && clean.output.contains("the books balance"), "\(clean.output)")
        #expect(clean.output.contains("puzzle: clean") && clean.output.contains("racer: clean"), "\(clean.output)")
        for app in ["puzzle", "racer"] {
            let one = try await run(["audit", "--app", app])
            #expect(one.status == 0 && one.output.contains("app \(app): the books balance"), "\(one.output)")
        }

        // When racer's balance drifts from its ledger, only racer's books are not clean.
        try await database.transaction { db in
            try await db.execute("UPDATE balances SET amount = amount + 1 WHERE account_id = 'racer/player-1'")
        }
        let all = try await run(["audit"])
        #expect(all.status == 1 && all.output.contains("puzzle: clean"), "\(all.output)")
        #expect(all.output.contains("racer: 1 finding"), "\(all.output)")
        #expect(try await run(["audit", "--app", "puzzle"]).status == 0)
        let dirty = try await run(["audit", "--app", "racer"])
        #expect(dirty.status == 1 && dirty.output.contains("racer/player-1 has 501 coins"), "\(dirty.output)")
    }

    /// The console of the `iap intake` process: each list filtered by app, and a player
    /// found in every app.
    static func checkConsole(_ pipeline: ProcessPipeline) async throws {
        // LiveConsole only sends requests here; its database handle is not read.
        let console = LiveConsole(port: pipeline.intakePort, lines: .init(), database: try pipeline.database())
        let cookie = try #require(LiveConsole.cookie(try await console.logIn()))
        func get(_ path: String) async throws -> RawHTTPConnection.Response {
            try #require(try await console.send("GET", path, cookie: cookie))
        }

        // Searched in every app, player-1 is two accounts, each with its app.
        let both = try await get("/console/accounts?q=player-1")
        #expect(both.status == 200, "\(both.body)")
        for app in ["puzzle", "racer"] {
            #expect(both.body.contains("<li data-app=\"\(app)\"><a href=\"/console/accounts/"), "\(both.body)")
            #expect(both.body.contains(">\(app)/player-1</a>"), "\(both.body)")
        }
        // In one app it opens that app's account, its `/` encoded in the link and decoded by the route.
        let one = try await get("/console/accounts?q=player-1&app=racer")
        #expect(one.status == 303 && one.headers["location"] == "/console/accounts/racer%2Fplayer-1")
        let page = try await get("/console/accounts/racer%2Fplayer-1")
        #expect(page.status == 200 && page.body.contains("<b>500</b>"), "\(page.body)")

        // The webhook log and the dead letters, per app and for all.
        let racerHooks = try await get("/console/webhooks?app=racer")
        #expect(racerHooks.body.components(separatedBy: "data-type=\"receipt.credited\"").count == 2)
        #expect(racerHooks.body.contains("racer%2Fplayer-1\">player-1</a>"), "\(racerHooks.body)")
        let allHooks = try await get("/console/webhooks")
        #expect(allHooks.body.contains(">puzzle/player-1</a>") && allHooks.body.contains(">racer/player-1</a>"))
        let racerLetters = try await get("/console/dead?app=racer")
        #expect(racerLetters.body.contains("dl_ops_racer") && !racerLetters.body.contains("dl_ops_puzzle"))
        let allLetters = try await get("/console/dead")
        #expect(allLetters.body.contains("dl_ops_racer") && allLetters.body.contains("dl_ops_puzzle"))

        // An app the file does not list is refused by name.
        let unknown = try await get("/console/webhooks?app=chess")
        #expect(unknown.status == 400 && unknown.body.contains("chess"), "\(unknown.status) \(unknown.body)")
    }

    /// Writes the apps file of these tests: puzzle, the default app with ProcessPipeline's
    /// token, and racer; each with the webhook given. Returns its path.
    static func writeApps(in directory: TemporaryDirectory, webhooks: [(url: String, secret: String)] = [])
        throws -> String
    {
        let path = directory.file("apps.yaml")
        var text = "apps:\n"
        for (index, (id, token)) in [("puzzle", ProcessPipeline.token), ("racer", AppsEndToEndTests.racerToken)]
            .enumerated()
        {
            text += "  - id: \(id)\n    api_tokens: [\(token)]\n"
            if index < webhooks.count {
                text += "    webhook: { url: \"\(webhooks[index].url)\", secret: \"\(webhooks[index].secret)\" }\n"
            }
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The test's handle on the processes' database (nil: ProcessPipeline's SQLite file), and
    /// how the processes find it.
    static func withDatabase(
        _ backend: TestBackend, _ body: ((any SQLDatabase)?, [String: String]) async throws -> Void
    ) async throws {
        switch backend {
        case .sqlite:
            try await body(nil, [:])
        case .postgres:
            try await PostgresFixture.withDatabase { database in
                try await database.migrate()
                try await body(database, ["IAP_DATABASE_URL": PostgresFixture.url(of: database.location.database)])
            }
        }
    }
}
