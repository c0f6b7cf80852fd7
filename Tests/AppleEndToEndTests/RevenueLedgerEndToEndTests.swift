import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import StubStore
import Testing

@testable import EndToEndSupport

/// The revenue ledger written in the same transaction as each credit and take-back, on both
/// databases: Apple's signed price (milli-units) kept exactly in the currency's minor units,
/// its refund a negative entry of the same shape, the totals per currency.
@Suite struct RevenueLedgerEndToEndTests {
    @Test(arguments: TestBackend.allCases) func applesPriceAndItsRefundAreTheLedgersEntries(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend) { pipeline in
            let storeKit = pipeline.stub.storeKit
            let started = Date().addingTimeInterval(-60)
            // Given 500 coins bought for $4.99 in the US, and ¥800 of them twice in Japan
            var dollars = StubTransaction(transactionID: "rev-1", productID: "com.example.coins500")
            (dollars.price, dollars.currency) = (4990, "USD")
            var yen = StubTransaction(transactionID: "rev-2", productID: "com.example.coins500", quantity: 2)
            (yen.price, yen.currency, yen.storefront) = (800_000, "JPY", "JPN")
            for (account, transaction) in [("rev-us", dollars), ("rev-jp", yen)] {
                let (_, id) = try await pipeline.submit(
                    account: account, signedTransaction: storeKit.signTransaction(transaction))
                let final = try await pipeline.finalStatus(try #require(id))
                #expect(final["status"] as? String == "credited", "\(final)")
            }
            let revenue = RevenueRepository(pipeline.database)
            var totals = try await revenue.totals(since: started, until: Date().addingTimeInterval(60))
            #expect(totals.map(\.currency) == ["JPY", "USD"])
            #expect(totals.map(\.gross) == [1_600, 499] && totals.map(\.proceeds) == [1_120, 349])

            // When Apple refunds the dollars, and says so twice
            dollars.revocationDate = Date()
            for _ in 0..<2 {
                #expect(
                    try await storeKit.send(
                        storeKit.signNotification(type: .refund, transaction: dollars), to: pipeline.notificationURL)
                        == 200)
            }
            #expect(await pipeline.notificationsSettled(2))

            // Then one negative entry gives the $4.99 back; the yen stand
            totals = try await revenue.totals(since: started, until: Date().addingTimeInterval(60))
            #expect(totals.map(\.gross) == [1_600, 0] && totals.map(\.proceeds) == [1_120, 0])
            #expect(totals.map(\.givenBack) == [0, -499] && totals.map(\.payments) == [1, 1])
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
            let rows = try await pipeline.database.snapshot { db in
                try await db.rows("SELECT kind, gross, country, estimated FROM revenue_entries ORDER BY id")
            }
            #expect(try rows.map { try $0.get("kind") as String } == ["purchase", "purchase", "refund"])
            #expect(try rows.map { try $0.get("country") as String? } == ["USA", "JPN", "USA"])

            // And the days the console reads hold the same sums, by store, as the entries rebuild them
            let today = RevenueDay.day(of: Date())
            let days = try await revenue.days(from: RevenueDay.day(of: started), through: today)
            #expect(days.map(\.key.store) == ["apple", "apple"] && days.map(\.key.currency) == ["JPY", "USD"])
            #expect(days.map(\.gross) == totals.map(\.gross) && days.map(\.proceeds) == totals.map(\.proceeds))
            #expect(
                days.map(\.givenBack) == [0, -499] && days.map(\.payments) == [1, 1] && days.map(\.takeBacks) == [0, 1])
            #expect(try await revenue.rebuildDays() == 2)
            #expect(try await revenue.days(from: RevenueDay.day(of: started), through: today) == days)
        }
    }
}
