import Console
import Database
import Foundation
import HTTPClient
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// The console under `/console`, served by the intake of a running pipeline: in a real
/// headless Chromium, and over plain HTTP for the refusals.
@Suite struct ConsoleTests {
    static let secret = "alice-secret-0123456789"
    /// alice may replay and discard (the `adjust` role).
    static let console = try! ConsoleConfiguration(
        operators: [(name: "alice", secret: secret)], roles: ["alice": [.adjust]])

    // MARK: - HTTP helpers

    func get(_ path: String, cookie: String? = nil, _ pipeline: PipelineHarness) async throws -> HTTPClient.HTTPResponse
    {
        try await pipeline.client.execute(
            HTTPClient.HTTPRequest(
                url: "http://127.0.0.1:\(pipeline.intakePort)\(path)",
                headers: cookie.map { [(name: "Cookie", value: $0)] } ?? []))
    }

    func post(_ path: String, form: [String: String], cookie: String? = nil, _ pipeline: PipelineHarness) async throws
        -> HTTPClient.HTTPResponse
    {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
        // As a browser posts a form of the console's own page.
        var headers = [
            (name: "Content-Type", value: "application/x-www-form-urlencoded"),
            (name: "Origin", value: "http://127.0.0.1:\(pipeline.intakePort)"),
        ]
        if let cookie { headers.append((name: "Cookie", value: cookie)) }
        return try await pipeline.client.execute(
            HTTPClient.HTTPRequest(
                method: .post, url: "http://127.0.0.1:\(pipeline.intakePort)\(path)", headers: headers,
                body: Array(body.utf8)))
    }

    /// Logs in; returns the session cookie (`name=value`).
    func logIn(_ pipeline: PipelineHarness, as name: String = "alice", secret: String = Self.secret) async throws
        -> String
    {
        let response = try await post("/console/login", form: ["name": name, "secret": secret], pipeline)
        #expect(response.status == 303)
        let setCookie = try #require(response.header("Set-Cookie"))
        #expect(setCookie.contains("HttpOnly"))
        #expect(setCookie.contains("SameSite=Strict"))
        return String(setCookie.split(separator: ";")[0])
    }

    /// The CSRF token a page's forms carry.
    func csrf(in html: String) throws -> String {
        let marker = "name=\"csrf\" value=\""
        let start = try #require(html.range(of: marker)?.upperBound)
        return String(html[start...].prefix { $0 != "\"" })
    }

    // MARK: - Tests

    @Test(arguments: TestBackend.allCases) func anOperatorReplaysADeadLetterInChromiumAndTheReceiptIsCreditedOnce(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, maxAttempts: 2, console: Self.console) { pipeline in
            // Given a dead receipt
            let receipt = try await pipeline.submitDoomed(account: "browser", transactionID: "console-t1")

            // When an operator replays it in the console, in Chromium
            let artifacts = try BrowserArtifacts.directory(backend)
            let screenshot = artifacts + "/console-replay.png"
            try? FileManager.default.removeItem(atPath: screenshot)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("ConsoleBrowser/replay_dead_letter.py").path
            let (status, output) = try await run(
                "/usr/bin/python3",
                [
                    script, "--url", "http://127.0.0.1:\(pipeline.intakePort)", "--operator", "alice", "--secret",
                    Self.secret, "--receipt", receipt, "--screenshot", screenshot,
                ])
            print("console browser test:\n\(output)")
            #expect(
                status == 0, "the browser script failed (needs chromium, chromium-driver, python3-selenium): \(output)")
            #expect(FileManager.default.fileExists(atPath: screenshot))

            // Then the receipt is credited exactly once, and the letter says who replayed it
            #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")
            _ = try await pipeline.receiver.waitFor(count: 2, timeout: .seconds(30)) { $0.wasAccepted }
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await pipeline.balance("browser") == 100)
            #expect(pipeline.creditedWebhooks(receipt) == 1)
            let letter = try #require(
                try await DeadLetterRepository(pipeline.database).deadLetters(receiptID: receipt).first)
            #expect(letter.status == .replayed)
            #expect(letter.resolvedBy == "alice")
        }
    }

    @Test(arguments: TestBackend.allCases) func withoutASessionTheConsoleAsksToLogInAndAWrongSecretIsRefused(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, console: Self.console) { pipeline in
            // No credentials: 401 with the login form, for pages and for posts
            let page = try await get("/console", pipeline)
            #expect(page.status == 401)
            #expect(page.bodyString.contains("name=\"secret\""))
            let forged = try await post("/console/groups/replay", form: ["group": "x", "csrf": "x"], pipeline)
            #expect(forged.status == 401)
            // A forged cookie is no session either
            #expect(try await get("/console", cookie: "iap_console=alice.9999999999.forged", pipeline).status == 401)

            // A wrong secret: 401, no session cookie (only the login form's own)
            let wrong = try await post(
                "/console/login", form: ["name": "alice", "secret": "wrong-secret-0123456789"], pipeline)
            #expect(wrong.status == 401)
            #expect(wrong.bodyString.contains("Wrong operator name or secret"))
            #expect(!wrong.headers(named: "Set-Cookie").contains { $0.hasPrefix("iap_console=") })

            // The right one: a session that opens every page
            let cookie = try await logIn(pipeline)
            for path in [
                "/console", "/console/dead", "/console/receipts?q=nobody", "/console/dead?reason=x&older_than=1h",
            ] {
                let response = try await get(path, cookie: cookie, pipeline)
                #expect(response.status == 200, "\(path): \(response.status)")
            }
            // A malformed filter is a clear 400; an unknown letter a 404
            let badFilter = try await get("/console/dead?older_than=soon", cookie: cookie, pipeline)
            #expect(badFilter.status == 400)
            #expect(badFilter.bodyString.contains("older-than"))
            #expect(try await get("/console/dead/dl_nope", cookie: cookie, pipeline).status == 404)
        }
    }

    @Test(arguments: TestBackend.allCases) func aPostWithABadCSRFTokenIsForbiddenAndChangesNothing(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, maxAttempts: 2, console: Self.console) { pipeline in
            let receipt = try await pipeline.submitDoomed(account: "csrf", transactionID: "console-t2")
            let letter = try await pipeline.letterID(receipt: receipt)
            let cookie = try await logIn(pipeline)
            let page = try await get("/console/dead/\(letter)", cookie: cookie, pipeline)
            #expect(page.status == 200)
            #expect(page.bodyString.contains(receipt))
            let token = try csrf(in: page.bodyString)

            // A missing or wrong token: 403, and the letter and receipt are as they were
            for form in [["reason": "x"], ["reason": "x", "csrf": "wrong"], ["reason": "x", "csrf": token + "x"]] {
                #expect(
                    try await post("/console/dead/\(letter)/discard", form: form, cookie: cookie, pipeline).status
                        == 403)
                #expect(
                    try await post("/console/dead/\(letter)/replay", form: form, cookie: cookie, pipeline).status == 403
                )
            }
            #expect(try await DeadLetterRepository(pipeline.database).deadLetter(id: letter)?.status == .waiting)
            #expect(try await ReceiptRepository(pipeline.database).receipt(id: receipt)?.status == .dead)

            // A discard without a reason is refused too, changing nothing
            let noReason = try await post(
                "/console/dead/\(letter)/discard", form: ["csrf": token], cookie: cookie, pipeline)
            #expect(noReason.status == 422)
            #expect(try await DeadLetterRepository(pipeline.database).deadLetter(id: letter)?.status == .waiting)

            // With the right token the discard is done and recorded
            let done = try await post(
                "/console/dead/\(letter)/discard", form: ["csrf": token, "reason": "fraud check"], cookie: cookie,
                pipeline)
            #expect(done.status == 200)
            #expect(
                try await ReceiptRepository(pipeline.database).receipt(id: receipt)?.reason
                    == "discarded by alice: fraud check")
            // And the search finds the receipt by its account
            let search = try await get("/console/receipts?q=csrf", cookie: cookie, pipeline)
            #expect(search.bodyString.contains(receipt))
        }
    }

    @Test(arguments: TestBackend.allCases) func groupActionsDiscardAndReplayEveryLetterOfAReason(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, maxAttempts: 2, console: Self.console) { pipeline in
            let receipts = ReceiptRepository(pipeline.database)
            let cookie = try await logIn(pipeline)
            let token = try csrf(in: try await get("/console", cookie: cookie, pipeline).bodyString)

            // Given one dead receipt: discarding its group records who and why
            let first = try await pipeline.submitDoomed(account: "group-1", transactionID: "console-g1")
            let reason = try #require(try await receipts.receipt(id: first)?.reason)
            let overview = try await get("/console", cookie: cookie, pipeline)
            #expect(overview.bodyString.contains(reason))
            let noWhy = try await post(
                "/console/groups/discard", form: ["csrf": token, "group": reason], cookie: cookie, pipeline)
            #expect(noWhy.status == 422)
            #expect(try await receipts.receipt(id: first)?.status == .dead)
            #expect(try await receipts.receipt(id: first)?.reason == reason)
            let discarded = try await post(
                "/console/groups/discard", form: ["csrf": token, "group": reason, "reason": "load test"],
                cookie: cookie, pipeline)
            #expect(discarded.status == 200)
            #expect(discarded.bodyString.contains("discarded 1, failed 0, skipped 0"))
            #expect(try await receipts.receipt(id: first)?.reason == "discarded by alice: load test")

            // Given two more: replaying their group credits both, once
            let second = try await pipeline.submitDoomed(account: "group-2", transactionID: "console-g2")
            let third = try await pipeline.submitDoomed(account: "group-3", transactionID: "console-g3")
            let replayed = try await post(
                "/console/groups/replay", form: ["csrf": token, "group": reason], cookie: cookie, pipeline)
            #expect(replayed.status == 200)
            #expect(replayed.bodyString.contains("replayed 2, failed 0, skipped 0"))
            #expect(try await pipeline.finalStatus(second)["status"] as? String == "credited")
            #expect(try await pipeline.finalStatus(third)["status"] as? String == "credited")
            #expect(try await pipeline.balance("group-2") == 100)
            #expect(try await pipeline.balance("group-3") == 100)
            #expect(try await pipeline.balance("group-1") == 0)
        }
    }

    @Test func theOverviewShowsTheLatestReconciliation() async throws {
        try await PipelineHarness.run(console: Self.console) { pipeline in
            let cookie = try await logIn(pipeline)
            // Before any run, the overview says how to get one
            #expect(
                try await get("/console", cookie: cookie, pipeline).bodyString.contains("No reconciliation has run yet")
            )

            // After one that found drift, it shows what was found and fed
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            try await ReconciliationRepository(pipeline.database).record(
                ReconciliationRun(
                    trigger: .schedule, dryRun: false, windowStart: t0, windowEnd: t0.addingTimeInterval(3600),
                    examined: 4, missing: 2, fed: 2, startedAt: t0, finishedAt: t0.addingTimeInterval(3601)))
            let page = try await get("/console", cookie: cookie, pipeline).bodyString
            #expect(page.contains("Last run 2027-01-15T09:00:01Z (scheduled)"))
            #expect(page.contains("4 undelivered listed by Apple, 2 never stored, 2 fed."))
        }
    }

    @Test func theOverviewShowsTheServerAPIBudgetInUse() async throws {
        try await PipelineHarness.run(console: Self.console) { pipeline in
            let cookie = try await logIn(pipeline)
            #expect(
                try await get("/console", cookie: cookie, pipeline).bodyString.contains(
                    "No call to Apple's Server API or Google Play's API in the last minute"))

            // After three calls booked by some process, and a 429 that paused the budget
            let store = CallBudgetRepository(pipeline.database)
            let budget = CallBudget(
                name: "appstore/com.example.game/production/getTransactionInfo", limit: 50, share: 0.9)
            let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
            for _ in 0..<3 { _ = try await store.reserve(budget, maxWait: .seconds(10)) { now } }
            try await store.pause(budget, until: now + 60_000_000)
            let page = try await get("/console", cookie: cookie, pipeline).bodyString
            #expect(page.contains("<code>appstore/com.example.game/production/getTransactionInfo</code>"))
            #expect(page.contains("45/s of 50/s"))
            #expect(page.contains("<td class=\"num\">3</td>"))
        }
    }

    @Test(arguments: TestBackend.allCases) func theReceiptSearchShowsPurchasesCreditedToAnotherAccount(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, console: Self.console) { pipeline in
            // Given alice's order, and the purchase it paid sent in by bob's session
            let (_, order) = try await pipeline.post(
                "/v1/orders", ["account_id": "alice", "product_id": "com.example.coins100"])
            let orderID = try #require(order["order_id"] as? String)
            let purchase = StubTransaction(productID: "com.example.coins100")
            let (_, receiptID) = try await pipeline.submit(
                account: "bob", signedTransaction: pipeline.stub.storeKit.signTransaction(purchase), orderID: orderID)
            #expect(try await pipeline.finalStatus(try #require(receiptID))["status"] as? String == "credited")

            // When an operator searches for bob
            let cookie = try await logIn(pipeline)
            let page = try await get("/console/receipts?q=bob", cookie: cookie, pipeline).bodyString

            // Then the conflict is listed: sent by bob, credited to alice, bound by the order
            #expect(page.contains("Binding conflicts"))
            #expect(page.contains(purchase.transactionID))
            #expect(page.contains(">alice<") && page.contains(">order<"))
            #expect(try await OrderRepository(pipeline.database).bindingConflicts(involving: "nobody").isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func withoutOperatorsTheConsoleIsDisabled(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, console: try ConsoleConfiguration(operators: [])) { pipeline in
            let page = try await get("/console", pipeline)
            #expect(page.status == 503)
            #expect(page.bodyString.contains("IAP_CONSOLE_OPERATORS"))
            #expect(
                try await post("/console/login", form: ["name": "alice", "secret": Self.secret], pipeline).status == 503
            )
        }
    }

    @Test func operatorSettingsAreChecked() throws {
        #expect(throws: (any Error).self) { try ConsoleConfiguration(operators: [(name: "bob", secret: "short")]) }
        #expect(throws: (any Error).self) {
            try ConsoleConfiguration(operators: [(name: "b o b", secret: "long-enough-secret-123")])
        }
        #expect(throws: (any Error).self) {
            try ConsoleConfiguration(environment: .init(["IAP_CONSOLE_OPERATORS": "bob-without-secret"]))
        }
        #expect(try ConsoleConfiguration(environment: .init([:])).isEnabled == false)
        #expect(
            try ConsoleConfiguration(environment: .init(["IAP_CONSOLE_OPERATORS": "bob:long-enough-secret-123"]))
                .isEnabled)
    }

    /// Runs a program to the end; its exit status and output.
    func run(_ executable: String, _ arguments: [String]) async throws -> (Int32, String) {
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: executable), arguments)
        return (outcome.status, outcome.output)
    }
}
