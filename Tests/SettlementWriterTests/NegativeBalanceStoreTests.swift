import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// A refund of coins the player already spent, stored as the catalog's policy decides, on
/// both backends: the ledger holds the whole debit (and any write-off), the balance is its
/// sum, the account is flagged, and a reversal gives back only what was taken.
@Suite struct NegativeBalanceStoreTests {
    let t0 = Fixture.t0

    static func catalog(_ policy: NegativeBalancePolicy) -> Catalog {
        var catalog = Fixture.catalog
        catalog.rawNegativeBalance = policy.rawValue
        return catalog
    }

    /// a1 credited 100 coins for t1, then spends 80 of them; Apple refunds t1 (n1).
    func refundAfterSpending(_ database: any SQLDatabase, _ policy: NegativeBalancePolicy) async throws {
        let catalog = Self.catalog(policy)
        try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
        _ = try await SettlementRepository(database).apply(
            [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: catalog, now: t0)
        _ = try await AdjustmentRepository(database).apply(
            .init(
                accountID: "a1", change: .currency("coins", amount: -80), reason: "spent in the shop",
                operatorName: "tests", idempotencyKey: UUID().uuidString),
            catalog: catalog, now: t0)
        try await database.acceptNewNotifications(["n1", "n2"])
        let refund = Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: t0))
        let results = try await SettlementRepository(database).apply(
            [refund, refund], catalog: catalog, now: t0.addingTimeInterval(60))
        guard case .notificationApplied(_, .applied, nil) = results.first else {
            throw FixtureError("refund not applied: \(results)")
        }
    }

    @Test(arguments: TestBackend.allCases) func allow_theBalanceGoesBelowZero_andTheAccountIsFlagged(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given 20 coins left of 100 when Apple refunds the 100 (applied twice)
            try await refundAfterSpending(database, .allow)

            // Then a1 owes 80: the whole debit is posted once, the account flagged once
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.balances == ["coins": -80])
            #expect(account.ledger.map(\.kind) == [.refund, .adjustment, .purchase])
            #expect(account.ledger.map(\.amount) == [-100, -80, 100])
            #expect(account.flags.map(\.reason) == [.negativeBalance])
            #expect(account.flags.first?.amount == -80)
            #expect(account.flags.first?.transactionID == "t1")
            #expect(account.flags.first?.notificationID == "n1")
            #expect(try await LedgerRepository(database).audit() == [])

            // And the webhook tells the balance after the refund
            let refund = try await database.allWebhooks().first { $0.type == .purchaseRefunded }
            let data = try Fixture.data(refund)
            #expect(data["amount"] as? Int == -100)
            #expect(data["balance"] as? Int == -80)
            #expect(data["written_off"] as? Int == 0)
        }
    }

    @Test(arguments: TestBackend.allCases)
    func clamp_theBalanceStopsAtZero_theRestWrittenOff_andAReversalGivesBackWhatWasTaken(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let ledger = LedgerRepository(database)
            // Given 20 coins left of 100 when Apple refunds the 100 (applied twice)
            try await refundAfterSpending(database, .clamp)

            // Then the balance is 0: the debit whole, 80 written off beside it, flagged once
            var account = try #require(try await ledger.account(id: "a1"))
            #expect(account.balances == ["coins": 0])
            #expect(account.ledger.map(\.kind) == [.writeOff, .refund, .adjustment, .purchase])
            #expect(account.ledger.map(\.amount) == [80, -100, -80, 100])
            #expect(account.flags.map(\.reason) == [.refundShortfall])
            #expect(account.flags.first?.amount == 80)
            #expect(try await ledger.audit() == [])
            let refund = try await database.allWebhooks().first { $0.type == .purchaseRefunded }
            let data = try Fixture.data(refund)
            #expect(data["balance"] as? Int == 0)
            #expect(data["written_off"] as? Int == 80)

            // When Apple reverses the refund
            let reversal = Fixture.notified("n2", "REFUND_REVERSED", uuid: "U2", Fixture.purchase("t1"))
            _ = try await SettlementRepository(database).apply(
                [reversal], catalog: Self.catalog(.clamp), now: t0.addingTimeInterval(120))

            // Then a1 gets back the 20 the refund took, not the 80 it forgave
            account = try #require(try await ledger.account(id: "a1"))
            #expect(account.balances == ["coins": 20])
            #expect(account.ledger.first?.kind == .refundReversal)
            #expect(account.ledger.first?.amount == 20)
            #expect(try await ledger.audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func clamp_aRefundWithNothingLeft_writesOffAllOfIt(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            // Given all 100 coins spent and 10 more owed (an operator's correction, made while the policy allowed it)
            let catalog = Self.catalog(.clamp)
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: catalog, now: t0)
            _ = try await AdjustmentRepository(database).apply(
                .init(
                    accountID: "a1", change: .currency("coins", amount: -110), reason: "spent", operatorName: "tests",
                    idempotencyKey: UUID().uuidString),
                catalog: Self.catalog(.allow), now: t0)
            try await database.acceptNewNotifications(["n1"])

            // When Apple refunds t1
            _ = try await SettlementRepository(database).apply(
                [Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: t0))],
                catalog: catalog, now: t0)

            // Then the balance stays where it was, and the refund is in the ledger whole, forgiven
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.balances == ["coins": -10])
            #expect(account.ledger.prefix(2).map(\.amount) == [100, -100])
            // (the operator's correction flagged it below zero first; the refund's shortfall is 100)
            #expect(account.flags.map(\.reason) == [.refundShortfall, .negativeBalance])
            #expect(account.flags.map(\.amount) == [100, -10])
            #expect(try await LedgerRepository(database).audit() == [])
        }
    }
}
