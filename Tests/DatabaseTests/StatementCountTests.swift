import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// A batch costs a few statements whatever its size (issue 24): the intake's group commit,
/// the relay's marks, the fulfiller's verdicts and the notifier's claims and outcomes, on
/// both databases, counted as the database would see them (`BEGIN` and `COMMIT` included).
/// (How few shapes those statements come in on SQLite: ``StatementShapeTests``.)
@Suite struct StatementCountTests {
    @Test(arguments: TestBackend.allCases) func aBatchOfAHundredCostsAFewStatementsAtEveryStage(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { base in
            let database = CountingDatabase(base)
            let receipts = (0..<100).map { Fixture.receipt("r\($0)", account: "a\($0 % 40)") }

            // The intake: one group commit, then the relay's mark
            let outcomes = try await IntakeRepository(database).accept(receipts, now: Fixture.t0)
            #expect(outcomes.allSatisfy { if case .created = $0 { true } else { false } })
            let accepted = database.take()
            try await IntakeRepository(database).markPublished(receipts.map(\.id), at: Fixture.t0)
            let marked = database.take()

            // The fulfiller: a hundred verdicts, each crediting a purchase
            let results = try await SettlementRepository(database).apply(
                receipts.map { Fixture.valid($0.id, account: $0.accountID, [Fixture.purchase("t-\($0.id)")]) },
                catalog: Fixture.catalog, now: Fixture.t0)
            #expect(results.allSatisfy { if case .applied(_, .credited, _) = $0 { true } else { false } })
            let applied = database.take()

            // The notifier: a claim of a hundred webhooks, and their outcomes
            let outbox = OutboxRepository(database)
            let due = try await outbox.claimDueWebhooks(
                now: Fixture.t0, limit: 100, leaseUntil: Fixture.t0.addingTimeInterval(60))
            #expect(due.count == 100)
            let claimed = database.take()
            _ = try await outbox.recordDeliveries(
                due.map { DeliveryRecord(id: $0.id, outcome: .delivered, at: Fixture.t0) })
            let recorded = database.take()

            print(
                "statements \(backend): accept \(accepted) mark \(marked) apply \(applied) claim \(claimed) record \(recorded)"
            )
            // Then each batch cost a handful of statements, not one or more per receipt. On
            // SQLite a write over n rows is a statement per set bit of n (SQLRows: 100 rows are
            // 64, 32 and 4), so that a kind of statement comes in few prepared shapes.
            let sqlite = backend == .sqlite
            #expect(accepted <= (sqlite ? 8 : 6), "group commit: \(accepted)")
            #expect(marked <= 4, "marks: \(marked)")
            #expect(applied <= (sqlite ? 30 : 24), "verdicts: \(applied)")
            #expect(claimed <= 4, "claim: \(claimed)")
            #expect(recorded <= (sqlite ? 5 : 4), "outcomes: \(recorded)")
            #expect(try await LedgerRepository(base).audit() == [])
            #expect(try await LedgerRepository(base).account(id: "a1")?.balances["coins"] == 300)
        }
    }
}
