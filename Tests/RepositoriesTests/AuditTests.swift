import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

@Suite struct AuditTests {
    let t0 = Fixture.t0

    /// Receipts of every fate: credited coins and gems, a subscription, a replay, a refund,
    /// an unknown product, a rejection, a retry and a dead letter.
    func mixedHistory(_ database: any SQLDatabase) async throws {
        try await database.acceptNew((1...10).map { Fixture.receipt("r\($0)", account: $0 % 2 == 0 ? "a2" : "a1") })
        let results = try await SettlementRepository(database).apply(
            [
                Fixture.valid("r1", account: "a1", [Fixture.purchase("t1", quantity: 3)]),
                Fixture.valid("r2", account: "a2", [Fixture.purchase("t2", product: Fixture.gems)]),
                Fixture.valid("r3", account: "a1", [Fixture.purchase("t3", product: Fixture.vip, expires: t0)]),
                Fixture.valid("r4", account: "a2", [Fixture.purchase("t1")]),
                Fixture.valid("r5", account: "a1", [Fixture.purchase("t5", cancelled: t0)]),
                Fixture.valid("r6", account: "a2", [Fixture.purchase("t6", product: "com.example.x")]),
                Fixture.verdict(.rejected, "r7", account: "a1", reason: "apple_status_21010", attempts: 1),
                Fixture.verdict(.retrying, "r8", account: "a2", reason: "timeout", attempts: 1),
                Fixture.verdict(.dead, "r9", account: "a1", reason: "poison", attempts: 1),
                Fixture.valid("r10", account: "a2", [Fixture.purchase("t10"), Fixture.purchase("t2")]),
            ], catalog: Fixture.catalog, now: t0)
        let applied = results.filter { if case .applied = $0 { true } else { false } }
        guard applied.count == 10 else { throw FixtureError("not all applied: \(results)") }
    }

    @Test(arguments: TestBackend.allCases) func theAuditIsCleanAfterAMixOfOperations(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            let ledger = LedgerRepository(database)
            // Given a history of every kind of outcome
            try await mixedHistory(database)
            #expect(try await ledger.account(id: "a1")?.balances == ["coins": 300])
            #expect(try await ledger.account(id: "a2")?.balances == ["gems": 10, "coins": 100])

            // When the books are audited
            let findings = try await ledger.audit()

            // Then nothing is wrong
            #expect(findings == [])
        }
    }

    @Test func theAuditFindsACorruptedBalance() async throws {
        try await withTemporaryDatabase { database in
            // Given a clean history, and then a balance changed behind the ledger's back
            try await mixedHistory(database)
            try await database.transaction { db in
                try await db.execute(
                    "UPDATE balances SET amount = amount + 1 WHERE account_id = 'a1' AND currency = 'coins'")
            }

            // When the books are audited
            let findings = try await LedgerRepository(database).audit()

            // Then exactly that balance is reported, with both numbers
            #expect(findings.count == 1)
            let finding = try #require(findings.first)
            #expect(finding.kind == .balanceMismatch)
            #expect(finding.accountID == "a1")
            #expect(finding.currency == "coins")
            #expect(finding.detail.contains("301") && finding.detail.contains("300"))
        }
    }

    @Test func theAuditFindsAPaidOrderThatCreditedNobody() async throws {
        try await withTemporaryDatabase { database in
            // Given an order paid cleanly
            guard
                case .created(let order) = try await OrderRepository(database).createOrder(
                    NewOrder(accountID: "a1", productID: Fixture.coins), catalog: Fixture.catalog,
                    lifetime: .seconds(600),
                    now: t0)
            else { throw FixtureError("no order") }
            try await database.acceptNew([Fixture.receipt("r1", account: "a1", orderID: order.orderID)])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: Fixture.catalog, now: t0)
            #expect(try await LedgerRepository(database).audit().isEmpty)

            // When the order is made to point at another account behind the books' back
            try await database.transaction { db in
                try await db.execute("INSERT INTO accounts (id, created_at) VALUES ('a9', '2025-01-01 00:00:00')")
                try await db.execute("UPDATE orders SET account_id = 'a9'")
            }

            // Then the audit names it
            let findings = try await LedgerRepository(database).audit()
            #expect(findings.map(\.kind) == [.paidOrderWithoutCredit])
            #expect(findings.first?.detail.contains(order.orderID) == true)
        }
    }

    @Test func theAuditFindsAMissingBalanceAndAMissingNotification() async throws {
        try await withTemporaryDatabase { database in
            // Given a clean history, then a balance row and a webhook deleted by hand
            try await mixedHistory(database)
            try await database.transaction { db in
                try await db.execute("DELETE FROM balances WHERE account_id = 'a2' AND currency = 'gems'")
                try await db.execute("DELETE FROM notification_outbox WHERE receipt_id = 'r9'")
            }

            // When the books are audited
            let findings = try await LedgerRepository(database).audit()

            // Then both are reported
            #expect(Set(findings.map(\.kind)) == [.ledgerWithoutBalance, .finalReceiptWithoutNotification])
            #expect(findings.first { $0.kind == .ledgerWithoutBalance }?.accountID == "a2")
            #expect(findings.first { $0.kind == .finalReceiptWithoutNotification }?.receiptID == "r9")
        }
    }
}
