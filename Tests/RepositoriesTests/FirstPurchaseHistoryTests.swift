import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// A first-purchase bonus read from the account's history in the database, on both backends:
/// the fulfiller asks only about the products that carry a bonus, so an account's other
/// purchases neither cost the read nor count as the first.
@Suite struct FirstPurchaseHistoryTests {
    static let starter = "com.example.starter"
    static let catalog = Catalog(
        products: Fixture.catalog.products + [
            Product(
                productID: starter, kind: .consumable, grant: Grant(currency: "gems", amount: 10),
                rules: PurchaseRules(firstPurchase: FirstPurchase(bonus: Grant(currency: "gems", amount: 5))))
        ])

    @Test(arguments: TestBackend.allCases) func theBonusComesWithTheFirstStarterWhateverElseWasBoughtBefore(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let settlement = SettlementRepository(database)
            let ledger = LedgerRepository(database)
            func buy(_ receipt: String, _ account: String, _ transaction: String, _ product: String) async throws {
                try await database.acceptNew([Fixture.receipt(receipt, account: account)])
                _ = try await settlement.apply(
                    [Fixture.valid(receipt, account: account, [Fixture.purchase(transaction, product: product)])],
                    catalog: Self.catalog, now: Fixture.t0)
            }
            // Given a1's history of coins and gems, none of them the starter pack
            try await buy("r1", "a1", "t1", Fixture.coins)
            try await buy("r2", "a1", "t2", Fixture.gems)
            // When a1 buys the starter pack, twice
            try await buy("r3", "a1", "t3", Self.starter)
            #expect(try await ledger.account(id: "a1")?.balances["gems"] == 10 + 15)
            try await buy("r4", "a1", "t4", Self.starter)
            // Then the first came with its bonus and the second did not
            #expect(try await ledger.account(id: "a1")?.balances["gems"] == 10 + 15 + 10)
            // And in one batch of several accounts, each is asked about its own history: a1's third
            // starter has no bonus, a2's first has
            try await buy("r5", "a2", "t5", Fixture.coins)
            let batch = [("r6", "a1", "t6"), ("r7", "a2", "t7"), ("r8", "a3", "t8")]
            try await database.acceptNew(batch.map { Fixture.receipt($0.0, account: $0.1) })
            _ = try await settlement.apply(
                batch.map { Fixture.valid($0.0, account: $0.1, [Fixture.purchase($0.2, product: Self.starter)]) },
                catalog: Self.catalog, now: Fixture.t0)
            #expect(try await ledger.account(id: "a1")?.balances["gems"] == 10 + 15 + 10 + 10)
            #expect(try await ledger.account(id: "a2")?.balances["gems"] == 15)
            #expect(try await ledger.account(id: "a3")?.balances["gems"] == 15)
            #expect(try await ledger.audit() == [])
        }
    }
}
