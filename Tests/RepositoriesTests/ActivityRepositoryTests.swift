import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// What the console's charts draw, bucketed by the hour and by the day on both backends.
@Suite struct ActivityRepositoryTests {
    /// 2025-06-15 15:06:40 UTC.
    let t0 = Fixture.t0

    @Test(arguments: TestBackend.allCases) func receiptsCreditsAndDeadLettersFallInTheirHourAndDay(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let earlier = t0.addingTimeInterval(-2 * 3600)
            try await database.acceptNew(
                [Fixture.receipt("r1", account: "a1"), Fixture.receipt("r2", account: "a1")], now: earlier)
            try await database.acceptNew(
                [Fixture.receipt("r3", account: "a2"), Fixture.receipt("r4", account: "a2")],
                now: t0.addingTimeInterval(-1800))
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: Fixture.catalog, now: earlier)
            _ = try await SettlementRepository(database).apply(
                [
                    Fixture.valid("r3", account: "a2", [Fixture.purchase("t3", product: Fixture.gems)]),
                    Fixture.verdict(.rejected, "r4", account: "a2", reason: "invalid_receipt", attempts: 1),
                ], catalog: Fixture.catalog, now: t0)
            _ = try await DeadLetterRepository(database).archive(
                [Fixture.letter("d1", receipt: "r2", deadAt: t0.addingTimeInterval(-60))],
                catalog: Fixture.catalog, now: t0)
            // Older than either window: left out
            try await database.acceptNew(
                [Fixture.receipt("r0", account: "a0")], now: t0.addingTimeInterval(-40 * 86_400))

            let day = try await ActivityRepository(database).activity(.day, now: t0)
            #expect(day.buckets.count == 24)
            #expect(day.buckets.last == Date(timeIntervalSince1970: 1_749_999_600))  // 15:00
            func values(_ series: [ActivityRepository.Series], _ name: String) -> [Int] {
                series.first { $0.name == name }?.values ?? []
            }
            // Receipts count where they were received: 13:00 is bucket 21, 14:00 bucket 22
            #expect(day.receipts.map(\.name) == ["credited", "rejected", "dead"])
            #expect(values(day.receipts, "credited").enumerated().filter { $1 > 0 }.map(\.offset) == [21, 22])
            #expect(values(day.receipts, "dead")[21] == 1 && values(day.receipts, "rejected")[22] == 1)
            #expect(values(day.credited, "coins")[21] == 100 && values(day.credited, "gems")[23] == 10)
            #expect(day.deadLetters.map(\.name) == ["attempts_exhausted: http_503"])
            #expect(values(day.deadLetters, "attempts_exhausted: http_503")[23] == 1)
            #expect(day.refunds.isEmpty)

            let month = try await ActivityRepository(database).activity(.month, now: t0)
            #expect(month.buckets.count == 30)
            #expect(
                values(month.receipts, "credited").last == 2 && values(month.receipts, "credited").reduce(0, +) == 2)
            #expect(values(month.credited, "coins").last == 100)
        }
    }

    /// The ledger's window is a range of its ids (``SQLSession/firstID(of:datedBy:since:slack:)``):
    /// over ids with gaps and dates out of order by up to two minutes, every row of the window
    /// is at or above the bound, and the rows above it are no older than the slack allows.
    @Test(arguments: TestBackend.allCases) func theFirstDatedIDBoundsEveryRowOfTheWindow(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            var generator = FuzzRandom(seed: 29)
            var rows: [(id: Int64, at: Date)] = []
            var id: Int64 = 1
            var trend = t0.addingTimeInterval(-2 * 86_400)
            for _ in 0..<3_000 {
                id += Int64.random(in: 1...5, using: &generator)
                trend += TimeInterval.random(in: 0...60, using: &generator)
                rows.append((id, trend.addingTimeInterval(-TimeInterval(Int.random(in: 0...120, using: &generator)))))
            }
            let slack: TimeInterval = 300
            let written = rows
            try await database.transaction { db in
                let dated = db.dialect == .sqlite ? "DATETIME" : "TIMESTAMPTZ"
                try await db.execute("CREATE TABLE dated_probe (id BIGINT PRIMARY KEY, at \(dated) NOT NULL)")
                #expect(try await db.firstID(of: "dated_probe", datedBy: "at", since: t0, slack: slack) == 0)
                _ = try await db.insert(
                    into: "dated_probe", columns: ["id", "at"], rows: written.map { [$0.id, $0.at] })
            }
            var moments = (0..<100).map { _ in
                rows.randomElement(using: &generator)!.at.addingTimeInterval(
                    -TimeInterval.random(in: 0...120, using: &generator))
            }
            moments += [rows[0].at.addingTimeInterval(-86_400), rows[rows.count - 1].at.addingTimeInterval(60), t0]
            for moment in moments {
                let bound = try await database.snapshot { db in
                    try await db.firstID(of: "dated_probe", datedBy: "at", since: moment, slack: slack)
                }
                #expect(rows.allSatisfy { $0.at < moment || $0.id >= bound }, "a row of the window below \(bound)")
                #expect(
                    rows.allSatisfy { $0.id < bound || $0.at >= moment.addingTimeInterval(-slack - 120) },
                    "a row far older than the window at or above \(bound)")
            }
        }
    }
}
