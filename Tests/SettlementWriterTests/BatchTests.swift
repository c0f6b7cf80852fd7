import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

@Suite struct BatchTests {
    @Test(arguments: TestBackend.allCases) func aThousandVerdictsInOneCallBalanceTheBooks(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            let t0 = Fixture.t0
            let accounts = (0..<10).map { "acct-\($0)" }
            let count = 1_000

            // Given a thousand receipts accepted in one call
            let receipts = (0..<count).map { Fixture.receipt("r\($0)", account: accounts[$0 % accounts.count]) }
            try await database.acceptNew(receipts)

            // And verdicts where every tenth replays a transaction credited earlier in the batch
            // (often to another account), and products and quantities vary
            var expected: [String: [String: Int]] = [:]
            var credited: Set<String> = []
            var verdicts: [Verdict] = []
            for i in 0..<count {
                let account = accounts[i % accounts.count]
                let transactionID = i % 10 == 9 ? "t\(i - 7)" : "t\(i)"
                let product = [Fixture.coins, Fixture.gems, Fixture.vip][i % 3]
                let quantity = i % 4 + 1
                let expiry = product == Fixture.vip ? t0.addingTimeInterval(Double(i) * 60) : nil
                verdicts.append(
                    Fixture.valid(
                        "r\(i)", account: account,
                        [Fixture.purchase(transactionID, product: product, quantity: quantity, expires: expiry)]))
                if credited.insert(transactionID).inserted, product != Fixture.vip {
                    let (currency, amount) = product == Fixture.coins ? ("coins", 100) : ("gems", 10)
                    expected[account, default: [:]][currency, default: 0] += amount * quantity
                }
            }

            // When they are applied in one call
            let results = try await SettlementRepository(database).apply(verdicts, catalog: Fixture.catalog, now: t0)

            // Then each replay is rejected and everything else credited
            #expect(results.count == count)
            let rejected = results.filter {
                $0 == .applied(receiptID: $0.receiptID, status: .rejected, reason: "already_credited")
            }
            let creditedResults = results.filter {
                $0 == .applied(receiptID: $0.receiptID, status: .credited, reason: nil)
            }
            #expect(rejected.count == count / 10)
            #expect(creditedResults.count == count - count / 10)

            // And every balance is the sum the test computed, the ledger has one entry per currency credit,
            // and the audit is clean
            var ledgerEntries = 0
            for account in accounts {
                let details = try #require(
                    try await LedgerRepository(database).account(id: account, ledgerLimit: 10_000))
                #expect(details.balances == expected[account, default: [:]], "\(account)")
                ledgerEntries += details.ledger.count
                #expect(details.ledger.reduce(0) { $0 + $1.amount } == details.balances.values.reduce(0, +))
            }
            #expect(ledgerEntries == credited.count - credited.filter { Int($0.dropFirst())! % 3 == 2 }.count)
            #expect(try await OutboxRepository(database).pendingWebhookCount() == count)
            #expect(try await LedgerRepository(database).audit() == [])
        }
    }
}
