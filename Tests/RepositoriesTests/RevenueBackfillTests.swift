import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// The back-fill of the revenue ledger, on both databases: what was credited before the
/// ledger kept prices gets its entries, dated when it happened and numbered below every live
/// entry, so that a span of time stays a range of the key; and it runs once.
@Suite struct RevenueBackfillTests {
    static let day: TimeInterval = 86_400
    /// The fixture's catalog, the coins priced $1.99 (the estimate for a receipt with no price).
    static let catalog = Catalog(
        products: Fixture.catalog.products.map { product in
            var priced = product
            if product.productID == Fixture.coins { priced.prices = ["USD": 199] }
            return priced
        })

    @Test(arguments: TestBackend.allCases) func whatWasCreditedBeforeTheLedgerIsBackfilledOnceBelowItsLiveEntries(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given three transactions credited before the ledger kept prices (t3 refunded since)
            try await database.acceptNew([
                Fixture.receipt("r1", account: "a1", kind: .storekit2), Fixture.receipt("r2", account: "a2"),
                Fixture.receipt("r3", account: "a1"), Fixture.receipt("r4", account: "a1"),
            ])
            try await database.acceptNewNotifications(["n1"])
            let settlement = SettlementRepository(database)
            let month = Fixture.t0.addingTimeInterval(30 * Self.day)
            _ = try await settlement.apply(
                [
                    Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")]),
                    Fixture.valid("r2", account: "a2", [Fixture.purchase("t2", product: Fixture.vip, expires: month)]),
                    Fixture.valid("r3", account: "a1", [Fixture.purchase("t3")]),
                ], catalog: Fixture.catalog, now: Fixture.t0)
            _ = try await settlement.apply(
                [Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t3", cancelled: Fixture.t0))],
                catalog: Fixture.catalog, now: Fixture.t0.addingTimeInterval(3600))
            // and one credited since, with its price, on the ledger
            var live = Fixture.purchase("t4")
            (live.priceMicros, live.currency) = (4_990_000, "USD")
            _ = try await settlement.apply(
                [Fixture.valid("r4", account: "a1", [live])], catalog: Self.catalog,
                now: Fixture.t0.addingTimeInterval(2 * Self.day))
            let revenue = RevenueRepository(database)
            let start = Fixture.t0.addingTimeInterval(-Self.day)
            let end = Fixture.t0.addingTimeInterval(3 * Self.day)
            #expect(try await revenue.page(after: .min, since: start, until: end).count == 1)

            // When the back-fill runs, the stored evidence pricing t1 and t2 as Apple signed them
            let signed: [String: Int64] = ["t1": 990_000, "t2": 9_990_000]
            let backfill = RevenueBackfill(database)
            let outcome = try await backfill.run(
                catalogs: AppCatalogs(Self.catalog),
                price: { evidence in
                    signed[evidence.transactionID].map {
                        RevenueBackfill.StoredPrice(micros: $0, currency: "USD", country: "USA")
                    }
                })

            // Then each has its payment, t3 at the catalog's price, estimated, and all of it given back
            #expect(outcome.entries == 4 && outcome.storePriced == 2 && outcome.estimated == 1)
            #expect(outcome.unpriced == 0 && outcome.alreadyBackfilled == 0)
            let rows = try await revenue.page(after: .min, since: start, until: end)
            #expect(rows.map(\.entry.transactionID) == ["t1", "t2", "t3", "t3", "t4"])
            #expect(rows.map(\.entry.kind) == [.purchase, .purchase, .purchase, .refund, .purchase])
            #expect(rows.map(\.entry.gross) == [99, 999, 199, -199, 499])
            #expect(rows.map(\.entry.estimated) == [false, false, true, true, false])
            #expect(rows.map(\.entry.store) == ["apple", "apple", "apple", "apple", "apple"])
            #expect(rows.map(\.entry.country) == ["USA", "USA", nil, nil, nil])
            #expect(rows[1].entry.subscription && rows[1].entry.periodEnds == month)
            // numbered below the live entry, in the order they are dated
            #expect(rows.prefix(4).allSatisfy { $0.id < 0 } && rows[4].id > 0)
            #expect(rows.map(\.id) == rows.map(\.id).sorted())
            #expect(rows.map(\.createdAt) == rows.map(\.createdAt).sorted())
            #expect(rows[3].createdAt == Fixture.t0.addingTimeInterval(3600))
            // A span of time is still a range of the key: the first day alone holds the four.
            let firstDay = try await revenue.page(
                after: .min, since: Fixture.t0.addingTimeInterval(-60), until: Fixture.t0.addingTimeInterval(7200))
            #expect(firstDay.count == 4)

            // And the days the console reads are the ledger's again, the subscription counted to its end
            let days = try await revenue.days(from: "2025-06-01", through: "2025-08-01")
            #expect(days.map(\.payments).reduce(0, +) == 4 && days.map(\.gross).reduce(0, +) == 1597)
            #expect(days.map(\.subscribers).filter { $0 != 0 } == [1, -1])
            let before = try await revenue.subscriptionsBefore(RevenueDay.day(of: month.addingTimeInterval(-Self.day)))
            #expect(before.map(\.subscribers).reduce(0, +) == 1)
            let after = try await revenue.subscriptionsBefore(RevenueDay.day(of: month.addingTimeInterval(Self.day)))
            #expect(after.map(\.subscribers).reduce(0, +) == 0)

            // And a second run changes nothing
            let again = try await backfill.run(catalogs: AppCatalogs(Self.catalog), price: { _ in nil })
            #expect(again.alreadyBackfilled == 4 && again.entries == 0)
            #expect(try await revenue.page(after: .min, since: start, until: end).count == 5)
        }
    }
}
