import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// How a receipt ends when its verdict credits nothing: rejected, retried, dead, or left alone.
extension FulfilmentTests {
    @Test(arguments: TestBackend.allCases) func aValidVerdictWithoutTransactionsIsRejected(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            let results = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [])], catalog: catalog, now: t0)
            #expect(results == [.applied(receiptID: "r1", status: .rejected, reason: "no_transactions")])
        }
    }

    @Test(arguments: TestBackend.allCases) func aRejectedVerdictEndsTheReceiptWithItsReason(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])

            // When the validator rejects it (Apple status 21003)
            let results = try await SettlementRepository(database).apply(
                [Fixture.verdict(.rejected, "r1", account: "a1", reason: "apple_status_21003", attempts: 1)],
                catalog: catalog, now: t0)

            // Then it is rejected with the reason, and a receipt.rejected webhook says why
            #expect(results == [.applied(receiptID: "r1", status: .rejected, reason: "apple_status_21003")])
            let receipt = try #require(try await ReceiptRepository(database).receipt(id: "r1"))
            #expect(receipt.reason == "apple_status_21003")
            #expect(receipt.attempts == 1)
            let due = try await OutboxRepository(database).dueWebhooks(now: t0, limit: 10)
            #expect(due.map(\.type) == [.receiptRejected])
            let data = try #require(try Fixture.json(due[0].body)["data"] as? [String: Any])
            #expect(data["reason"] as? String == "apple_status_21003")
        }
    }

    @Test(arguments: TestBackend.allCases) func retryingIsProgressUntilAValidVerdictCredits(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])

            // When a transient failure is reported
            let retrying = try await SettlementRepository(database).apply(
                [Fixture.verdict(.retrying, "r1", account: "a1", reason: "timeout", attempts: 2)], catalog: catalog,
                now: t0)

            // Then the receipt is retrying with the last error, and nobody is notified
            #expect(retrying == [.applied(receiptID: "r1", status: .retrying, reason: "timeout")])
            #expect(try await ReceiptRepository(database).receipt(id: "r1")?.attempts == 2)
            #expect(try await OutboxRepository(database).pendingWebhookCount() == 0)

            // When the next attempt succeeds
            let valid = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")], attempts: 3)], catalog: catalog,
                now: t0.addingTimeInterval(30))

            // Then it is credited after three attempts, without a stale reason
            #expect(valid == [.applied(receiptID: "r1", status: .credited, reason: nil)])
            let receipt = try #require(try await ReceiptRepository(database).receipt(id: "r1"))
            #expect(receipt.attempts == 3)
            #expect(receipt.reason == nil)
            #expect(try await OutboxRepository(database).pendingWebhookCount() == 1)
        }
    }

    @Test(arguments: TestBackend.allCases) func aDeadVerdictEndsTheReceiptAndNotifies(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])

            // When the validator dead-letters it after five attempts
            let results = try await SettlementRepository(database).apply(
                [Fixture.verdict(.dead, "r1", account: "a1", reason: "attempts exhausted: 503", attempts: 5)],
                catalog: catalog, now: t0)

            // Then it is dead with the reason, and a receipt.dead webhook carries reason and attempts
            #expect(results == [.applied(receiptID: "r1", status: .dead, reason: "attempts exhausted: 503")])
            let due = try await OutboxRepository(database).dueWebhooks(now: t0, limit: 10)
            #expect(due.map(\.type) == [.receiptDead])
            let data = try #require(try Fixture.json(due[0].body)["data"] as? [String: Any])
            #expect(data["reason"] as? String == "attempts exhausted: 503")
            #expect(data["attempts"] as? Int == 5)

            // And a late valid verdict changes nothing
            let late = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: catalog, now: t0)
            #expect(late == [.alreadyFinal(receiptID: "r1", status: .dead)])
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == [:])
        }
    }

    @Test(arguments: TestBackend.allCases) func unknownReceiptsOutcomesAndMalformedVerdictsChangeNothing(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1"), Fixture.receipt("r2", account: "a1")])
            var strange = Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])
            strange.rawOutcome = "maybe"

            // When a batch holds an unknown receipt, an unknown outcome, a transaction with an
            // empty id and a good verdict
            let results = try await SettlementRepository(database).apply(
                [
                    Fixture.valid("nope", account: "a1", [Fixture.purchase("t9")]),
                    strange,
                    Fixture.valid("r2", account: "a1", [Fixture.purchase("t2"), Fixture.purchase("")]),
                    Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")]),
                ], catalog: catalog, now: t0)

            // Then only the good one is applied, and the malformed one left no trace
            #expect(results[0] == .unknownReceipt(receiptID: "nope"))
            #expect(results[1] == .unknownOutcome(receiptID: "r1", outcome: "maybe"))
            guard case .invalid(receiptID: "r2", _) = results[2] else {
                Issue.record("expected r2 invalid, got \(results[2])")
                return
            }
            #expect(results[3] == .applied(receiptID: "r1", status: .credited, reason: nil))
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 100])
            let r2 = try #require(try await ReceiptRepository(database).receipt(id: "r2"))
            #expect(r2.status == .received)
            #expect(r2.transactions.isEmpty)
            #expect(try await ReceiptRepository(database).receipt(id: "nope") == nil)
            #expect(try await LedgerRepository(database).audit() == [])
        }
    }
}
