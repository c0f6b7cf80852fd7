import Database
import Foundation
import PipelineCore
import PipelineTesting
import SettlementWriter
import Testing

@testable import DatabaseTesting
@testable import Repositories

/// Refunds of one transaction applied by several fulfillers at once: whatever order they
/// take, the transaction loses the largest share refunded, once, in steps that each happen
/// once.
@Suite struct RefundStepsConcurrencyTests {
    @Test(arguments: TestBackend.allCases) func refundsOfOneTransactionAtOnce_takeTheLargestShareOnce(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given 100 coins credited to a1 for t1
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: Fixture.catalog,
                now: Fixture.t0)
            try await database.acceptNewNotifications(["n30", "n80", "n80-again"])
            let refund = { (id: String, share: Int) in
                var transaction = Fixture.purchase("t1", cancelled: Fixture.t0)
                transaction.revocationPercentage = share
                return Fixture.notified(id, "REFUND", uuid: "U-\(id)", transaction)
            }
            let verdicts = [refund("n30", 30_000), refund("n80", 80_000), refund("n80-again", 80_000)]

            // When three fulfillers apply a 30 % refund, an 80 % one and the 80 % one again, at once
            try await withThrowingTaskGroup(of: Void.self) { group in
                for verdict in verdicts {
                    group.addTask {
                        _ = try await SettlementRepository(database).apply(
                            [verdict], catalog: Fixture.catalog, now: Fixture.t0)
                    }
                }
                try await group.waitForAll()
            }

            // Then 80 are taken in all, in steps numbered 1, 2, ... each once, and the books balance
            let debits = try await database.snapshot { db in
                try await db.rows(
                    "SELECT amount, step FROM ledger_entries WHERE transaction_id = 't1' AND kind = 'refund' ORDER BY id"
                ).map { (try $0.get("amount", as: Int.self), try $0.get("step", as: Int.self)) }
            }
            #expect(debits.map(\.0).reduce(0, +) == -80, "\(debits)")
            #expect(debits.map(\.1) == (0..<debits.count).map { $0 + 1 }, "\(debits)")
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 20])
            #expect(try await LedgerRepository(database).audit() == [])
        }
    }
}
