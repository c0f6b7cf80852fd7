import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// The console's throughput: receipts received and credited in a window, counted through
/// their time-ordered ids (a range of the primary key) with the dates deciding, on both
/// databases; an id of an older release that sorts after the window's first still counts
/// by its date.
@Suite struct ThroughputTests {
    @Test(arguments: TestBackend.allCases) func receiptsAndCreditsAreCountedByTheirOwnTimesWhateverTheirIDs(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let now = Date()
            // Given receipts received two minutes and half a minute ago, with time-ordered ids
            // and with ids of an older release
            let old = TimeOrderedID.make(at: now - 120)
            let recent = TimeOrderedID.make(at: now - 30)
            let intake = IntakeRepository(database)
            _ = try await intake.accept([Fixture.receipt(old, account: "alice")], now: now - 120)
            _ = try await intake.accept([Fixture.receipt(recent, account: "bob")], now: now - 30)
            _ = try await intake.accept([Fixture.receipt("zz-legacy-old", account: "carol")], now: now - 120)
            _ = try await intake.accept([Fixture.receipt("zz-legacy-recent", account: "dave")], now: now - 29)
            // And credited: the old one two minutes ago, the recent ones just now
            let settlement = SettlementRepository(database)
            for (id, account, at) in [
                (old, "alice", now - 119), (recent, "bob", now - 5), ("zz-legacy-recent", "dave", now - 4),
            ] {
                _ = try await settlement.apply(
                    [Fixture.valid(id, account: account, [Fixture.purchase("t-\(id)")])], catalog: Fixture.catalog,
                    now: at)
            }

            // Then the last minute holds the two received and the two credited within it
            let minute = try await ReceiptRepository(database).throughput(since: now - 60)
            #expect(minute.received == 2 && minute.credited == 2 && minute.deadLettered == 0, "\(minute)")
            // And the last hour all four received and three credited
            let hour = try await ReceiptRepository(database).throughput(since: now - 3600)
            #expect(hour.received == 4 && hour.credited == 3 && hour.deadLettered == 0, "\(hour)")
        }
    }
}
