import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// Rejected Apple notifications expire; the others stay.
@Suite struct NotificationRetentionTests {
    let catalog = Fixture.catalog
    let t0 = Fixture.t0

    @Test func rejectedNotificationsOlderThanTheCutoffAreDeletedAndNothingElse() async throws {
        try await withTemporaryDatabase { database in
            let notifications = NotificationRepository(database)
            // Given one notification rejected at t0, one rejected two hours later, one still received
            try await database.acceptNewNotifications(["old", "recent", "waiting"])
            _ = try await SettlementRepository(database).apply(
                [Fixture.verdict(.rejected, "old", account: "", reason: "bad_signature", attempts: 1)],
                catalog: catalog, now: t0)
            _ = try await SettlementRepository(database).apply(
                [Fixture.verdict(.rejected, "recent", account: "", reason: "bad_signature", attempts: 1)],
                catalog: catalog, now: t0.addingTimeInterval(7200))

            // When rows rejected before t0 + 1 h are pruned
            let deleted = try await notifications.pruneRejected(
                before: t0.addingTimeInterval(3600))

            // Then only the old rejected one is gone
            #expect(deleted == 1)
            #expect(try await notifications.notification(id: "old") == nil)
            #expect(try await notifications.notification(id: "recent")?.status == .rejected)
            #expect(try await notifications.notification(id: "waiting")?.status == .received)
        }
    }
}
