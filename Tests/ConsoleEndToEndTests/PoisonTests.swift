import Console
import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// One bad value never stops crediting (issue 25): an operator's date past year 9999 is
/// refused at the door; a verdict whose values cannot be stored, or that meets a row that
/// cannot be read, is dead-lettered with its reason while every other receipt is credited;
/// and the account with the unreadable row is named, and repaired from the console.
extension ConsoleTests {
    static let poisonDesk = try! ConsoleConfiguration(
        environment: .init(["IAP_CONSOLE_OPERATORS": "alice:\(secret):adjust"]))

    @Test(arguments: TestBackend.allCases) func anEntitlementUntilYear99999IsRefusedAndChangesNothing(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, console: Self.poisonDesk) { pipeline in
            // Given a credited player and an operator with the adjust role
            let data = pipeline.receipt(transactions: [(id: "poison-t1", product: "com.example.coins100")])
            let receipt = try #require(try await pipeline.submit(account: "a1", receiptData: data).1)
            #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")
            let alice = try await logIn(pipeline)
            let page = try await get("/console/accounts/a1", cookie: alice, pipeline)

            // When she grants vip until 99999-01-01, and 10000-01-01
            for until in ["99999-01-01", "10000-01-01", "1969-12-31"] {
                let refused = try await post(
                    "/console/accounts/a1/adjust",
                    form: [
                        "csrf": try csrf(in: page.bodyString), "key": UUID().uuidString, "entitlement": "vip",
                        "until": until, "reason": "goodwill",
                    ], cookie: alice, pipeline)

                // Then it is a 400 that names the problem, and nothing is stored
                #expect(refused.status == 400, "\(until)")
                #expect(refused.bodyString.contains("Nothing was changed"), "\(until)")
            }
            #expect(try await AdjustmentRepository(pipeline.database).adjustments(of: "a1").isEmpty)
            let (status, account) = try await pipeline.get("/v1/accounts/a1")
            #expect(status == 200 && (account["entitlements"] as? [Any])?.isEmpty == true)
        }
    }

    /// Runs on SQLite, where a date is text and so can be made unreadable by hand.
    @Test func anUnreadableRowDeadLettersItsVerdictOnlyAndTheConsoleRepairsIt() async throws {
        try await PipelineHarness.run(.sqlite, console: Self.poisonDesk) { pipeline in
            // Given a1 holds vip, and its end was made unreadable in the database by hand
            let first = pipeline.receipt(transactions: [(id: "unread-t1", product: "com.example.coins100")])
            let credited = try #require(try await pipeline.submit(account: "a1", receiptData: first).1)
            #expect(try await pipeline.finalStatus(credited)["status"] as? String == "credited")
            _ = try await AdjustmentRepository(pipeline.database).apply(
                .init(
                    accountID: "a1", change: .entitlement("vip", until: Date().addingTimeInterval(86_400)),
                    reason: "goodwill", operatorName: "alice", idempotencyKey: "k-vip"),
                catalog: PipelineHarness.catalog, now: Date())
            try await pipeline.database.transaction { db in
                try await db.execute(
                    "UPDATE entitlements SET expires_at = '99999-01-01 00:00:00.000' WHERE account_id = 'a1'")
            }

            // When a1 and five other players send receipts
            let poisoned = try #require(
                try await pipeline.submit(
                    account: "a1",
                    receiptData: pipeline.receipt(transactions: [(id: "unread-t2", product: "com.example.coins100")])
                ).1)
            var others: [String] = []
            for index in 1...5 {
                let data = pipeline.receipt(transactions: [(id: "unread-o\(index)", product: "com.example.coins100")])
                others.append(try #require(try await pipeline.submit(account: "other-\(index)", receiptData: data).1))
            }

            // Then the others are credited, and a1's receipt is dead with a reason naming the row
            for receipt in others {
                #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")
            }
            let dead = try await pipeline.finalStatus(poisoned)
            #expect(dead["status"] as? String == "dead")
            let reason = dead["reason"] as? String ?? ""
            #expect(reason.contains("account a1") && reason.contains("entitlement vip"), "\(reason)")

            // And the API names the account it cannot read, and so does the console
            let (status, answer) = try await pipeline.get("/v1/accounts/a1")
            let error = answer["error"] as? [String: Any]
            #expect(status == 500 && error?["code"] as? String == "unreadable_state")
            #expect((error?["message"] as? String)?.contains("account a1") == true)
            let alice = try await logIn(pipeline)
            let page = try await get("/console/accounts/a1", cookie: alice, pipeline)
            #expect(page.bodyString.contains("id=\"unreadable\"") && page.bodyString.contains("entitlement vip"))

            // When the operator grants vip again with a valid end, from that page
            let key = try #require(page.bodyString.range(of: "name=\"key\" value=\"")).upperBound
            let repaired = try await post(
                "/console/accounts/a1/adjust",
                form: [
                    "csrf": try csrf(in: page.bodyString), "key": String(page.bodyString[key...].prefix(36)),
                    "entitlement": "vip", "until": "2030-01-01", "reason": "repair an unreadable end",
                ], cookie: alice, pipeline)

            // Then the account reads again, and its next receipt is credited
            #expect(repaired.status == 303)
            let (after, account) = try await pipeline.get("/v1/accounts/a1")
            #expect(after == 200)
            let entitlements = account["entitlements"] as? [[String: Any]] ?? []
            #expect(entitlements.first?["name"] as? String == "vip")
            let next = try #require(
                try await pipeline.submit(
                    account: "a1",
                    receiptData: pipeline.receipt(transactions: [(id: "unread-t3", product: "com.example.coins100")])
                ).1)
            #expect(try await pipeline.finalStatus(next)["status"] as? String == "credited")
            #expect(try await pipeline.balance("a1") == 200)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aVerdictThatCannotBeStoredIsDeadLetteredAndOthersCredited(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a store that answers a subscription ending in year 99999
            let farFuture = Date(timeIntervalSince1970: 3_093_527_980_800)
            let data = pipeline.stub.issue(
                StubReceipt(
                    bundleID: PipelineHarness.bundleID,
                    transactions: [
                        .init(transactionID: "far-t1", productID: "com.example.vip.monthly", expiresDate: farFuture)
                    ]))

            // When it is sent beside good receipts
            let poisoned = try #require(try await pipeline.submit(account: "far-player", receiptData: data).1)
            var others: [String] = []
            for index in 1...5 {
                let good = pipeline.receipt(transactions: [(id: "far-o\(index)", product: "com.example.coins100")])
                others.append(try #require(try await pipeline.submit(account: "near-\(index)", receiptData: good).1))
            }

            // Then it is dead with the reason, the others are credited, and the books balance
            let dead = try await pipeline.finalStatus(poisoned)
            #expect(dead["status"] as? String == "dead")
            #expect((dead["reason"] as? String ?? "").contains("years 1970-9999"), "\(dead)")
            for receipt in others {
                #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")
            }
            #expect(
                try await LedgerRepository(pipeline.database).account(id: "far-player")?.entitlements.isEmpty ?? true)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }
}
