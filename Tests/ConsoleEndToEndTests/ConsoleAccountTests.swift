import Console
import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// The console's account page and its grants, over HTTP: found by a transaction id, a
/// grant by an operator with the `adjust` role counted once, refused for one without it,
/// and bad input refused with a message that changes nothing.
extension ConsoleTests {
    static let bobSecret = "bob-secret-0123456789abc"
    static let desk = try! ConsoleConfiguration(
        environment: .init(["IAP_CONSOLE_OPERATORS": "alice:\(secret):adjust,bob:\(bobSecret)"]))

    @Test func rolesFollowTheSecretAfterALastColon() throws {
        let desk = Self.desk
        #expect(desk.may(.adjust, "alice") && !desk.may(.adjust, "bob") && !desk.may(.adjust, "carol"))
        // A last part that names no role belongs to the secret.
        let colon = try ConsoleConfiguration(
            environment: .init(["IAP_CONSOLE_OPERATORS": "carol:a-secret-with:colons-inside"]))
        #expect(colon.isEnabled && !colon.may(.adjust, "carol"))
        // A role does not count toward the secret's length.
        #expect(throws: (any Error).self) {
            try ConsoleConfiguration(environment: .init(["IAP_CONSOLE_OPERATORS": "dave:short:adjust"]))
        }
    }

    @Test(arguments: TestBackend.allCases) func anOperatorFindsAnAccountAndGrantsCoinsInChromium(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, console: Self.desk) { pipeline in
            let data = pipeline.receipt(transactions: [(id: "browser-t1", product: "com.example.coins100")])
            let (_, receiptID) = try await pipeline.submit(account: "browser-player", receiptData: data)
            #expect(try await pipeline.finalStatus(try #require(receiptID))["status"] as? String == "credited")

            let artifacts = try BrowserArtifacts.directory(backend)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("ConsoleBrowser/grant_on_account_page.py").path
            let (status, output) = try await run(
                "/usr/bin/python3",
                [
                    script, "--url", "http://127.0.0.1:\(pipeline.intakePort)", "--adjuster", "alice:\(Self.secret)",
                    "--reader", "bob:\(Self.bobSecret)", "--transaction", "browser-t1", "--account", "browser-player",
                    "--artifacts", artifacts,
                ])
            print("console account browser test:\n\(output)")
            #expect(status == 0, "the browser script failed: \(output)")
            #expect(FileManager.default.fileExists(atPath: artifacts + "/console-account-granted.png"))

            // The grant is on the books once, with its operator, and the books still balance
            #expect(try await pipeline.balance("browser-player") == 200)
            let adjustments = try await AdjustmentRepository(pipeline.database).adjustments(of: "browser-player")
            #expect(adjustments.map(\.operatorName) == ["alice"])
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func anAdjusterGrantsOnceAndAReaderCannot(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, console: Self.desk) { pipeline in
            // Given a player credited 100 coins
            let data = pipeline.receipt(transactions: [(id: "desk-t1", product: "com.example.coins100")])
            let (_, receiptID) = try await pipeline.submit(account: "desk-player", receiptData: data)
            let receipt = try #require(receiptID)
            #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")
            let alice = try await logIn(pipeline)

            // Found by the transaction id: straight to the account's page
            let found = try await get("/console/accounts?q=desk-t1", cookie: alice, pipeline)
            #expect(found.status == 303 && found.header("Location") == "/console/accounts/desk-player")
            let page = try await get("/console/accounts/desk-player", cookie: alice, pipeline)
            #expect(page.status == 200)
            #expect(page.bodyString.contains("receipt credited after 1 attempt"))
            #expect(page.bodyString.contains("id=\"grant\""))
            let key = try #require(page.bodyString.range(of: "name=\"key\" value=\"")).upperBound
            let form = [
                "csrf": try csrf(in: page.bodyString), "key": String(page.bodyString[key...].prefix(36)),
                "currency": "coins", "amount": "100", "reason": "lost order 42",
            ]

            // A grant, clicked twice: one ledger entry, one webhook
            for _ in 0..<2 {
                let granted = try await post(
                    "/console/accounts/desk-player/adjust", form: form, cookie: alice, pipeline)
                #expect(granted.status == 303)
                #expect(granted.header("Location")?.hasPrefix("/console/accounts/desk-player?adjusted=") == true)
            }
            #expect(try await pipeline.balance("desk-player") == 200)
            let after = try await get("/console/accounts/desk-player", cookie: alice, pipeline).bodyString
            #expect(after.contains("alice granted +100 coins, balance 200: lost order 42"))
            #expect(after.contains("data-type=\"account.adjusted\""))
            let adjustments = try await AdjustmentRepository(pipeline.database).adjustments(of: "desk-player")
            #expect(adjustments.count == 1 && adjustments.first?.operatorName == "alice")

            // Bad input: a message, nothing changed
            let refusals: [([String: String], Int, String)] = [
                (["amount": "0"], 422, "an adjustment of 0 changes nothing"),
                (["currency": "diamonds"], 422, "no product grants the currency"),
                (["reason": ""], 422, "an adjustment needs a reason"),
                (["amount": "lots"], 400, "is not a whole number"),
            ]
            for (change, status, message) in refusals {
                let response = try await post(
                    "/console/accounts/desk-player/adjust",
                    form: form.merging(change) { $1 }.merging(["key": UUID().uuidString]) { $1 }, cookie: alice,
                    pipeline)
                #expect(response.status == status, "\(change)")
                #expect(response.bodyString.contains(message) && response.bodyString.contains("Nothing was changed"))
            }
            let unknown = try await post(
                "/console/accounts/nobody/adjust", form: form.merging(["key": "k-unknown"]) { $1 }, cookie: alice,
                pipeline)
            #expect(unknown.status == 422 && unknown.bodyString.contains("no account"))

            // A reader sees the page read-only and cannot post a grant
            let bob = try await logIn(pipeline, as: "bob", secret: Self.bobSecret)
            let readOnly = try await get("/console/accounts/desk-player", cookie: bob, pipeline).bodyString
            #expect(readOnly.contains("id=\"read-only\"") && !readOnly.contains("id=\"grant\""))
            let forbidden = try await post(
                "/console/accounts/desk-player/adjust",
                form: form.merging(["csrf": try csrf(in: readOnly), "key": "k-bob"]) { $1 }, cookie: bob, pipeline)
            #expect(forbidden.status == 403)
            #expect(try await pipeline.balance("desk-player") == 200)
            #expect(try await AdjustmentRepository(pipeline.database).adjustments(of: "desk-player").count == 1)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])

            // Unknown ids: a 404 page, and a search that finds nothing
            #expect(try await get("/console/accounts/nobody", cookie: bob, pipeline).status == 404)
            let none = try await get("/console/accounts?q=nothing-here", cookie: bob, pipeline)
            #expect(none.status == 200 && none.bodyString.contains("No account found"))
        }
    }
}
