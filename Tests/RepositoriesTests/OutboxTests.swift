import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

@Suite struct OutboxTests {
    let t0 = Fixture.t0

    /// A database with `count` credited receipts, credited a second apart: one webhook each.
    func databaseWithNotifications(_ count: Int, _ body: (SQLiteDatabase) async throws -> Void) async throws {
        try await withTemporaryDatabase { database in
            try await database.acceptNew((1...count).map { Fixture.receipt("r\($0)", account: "a1") })
            for i in 1...count {
                _ = try await SettlementRepository(database).apply(
                    [Fixture.valid("r\(i)", account: "a1", [Fixture.purchase("t\(i)")])], catalog: Fixture.catalog,
                    now: t0.addingTimeInterval(Double(i)))
            }
            try await body(database)
        }
    }

    @Test func dueNotificationsComeOldestFirstAndOnlyWhenDue() async throws {
        try await databaseWithNotifications(3) { database in
            // When the notifier asks at different times
            let early = try await OutboxRepository(database).dueWebhooks(now: t0, limit: 10)
            let middle = try await OutboxRepository(database).dueWebhooks(now: t0.addingTimeInterval(2), limit: 10)
            let limited = try await OutboxRepository(database).dueWebhooks(now: t0.addingTimeInterval(3), limit: 2)

            // Then only due ones come, oldest first, at most `limit`
            #expect(early.isEmpty)
            #expect(middle.map(\.receiptID) == ["r1", "r2"])
            #expect(limited.map(\.receiptID) == ["r1", "r2"])
            #expect(try await OutboxRepository(database).pendingWebhookCount() == 3)
        }
    }

    @Test func aDeliveredNotificationIsNotSentAgain() async throws {
        try await databaseWithNotifications(2) { database in
            let later = t0.addingTimeInterval(100)
            let first = try #require(try await OutboxRepository(database).dueWebhooks(now: later, limit: 10).first)

            // When it is delivered
            #expect(try await OutboxRepository(database).markDelivered(first.id, at: later))

            // Then it is no longer due nor pending
            #expect(try await OutboxRepository(database).dueWebhooks(now: later, limit: 10).map(\.receiptID) == ["r2"])
            #expect(try await OutboxRepository(database).pendingWebhookCount() == 1)
            // And an unknown id is reported as such
            #expect(try await OutboxRepository(database).markDelivered("evt_nope", at: later) == false)
        }
    }

    @Test func aFailedDeliveryIsRetriedLaterThenGivenUp() async throws {
        try await databaseWithNotifications(1) { database in
            let now = t0.addingTimeInterval(10)
            let notification = try #require(try await OutboxRepository(database).dueWebhooks(now: now, limit: 10).first)

            // When a delivery fails with a retry planned in a minute
            try await OutboxRepository(database).recordDeliveryFailure(
                notification.id, error: "HTTP 503", nextAttemptAt: now.addingTimeInterval(60), now: now)

            // Then it is not due until then, and counts the attempt
            #expect(
                try await OutboxRepository(database).dueWebhooks(now: now.addingTimeInterval(59), limit: 10).isEmpty)
            let retry = try #require(
                try await OutboxRepository(database).dueWebhooks(now: now.addingTimeInterval(60), limit: 10).first)
            #expect(retry.id == notification.id)
            #expect(retry.attempts == 1)
            #expect(retry.body == notification.body)

            // When it fails for good
            try await OutboxRepository(database).recordDeliveryFailure(
                notification.id, error: "HTTP 410", nextAttemptAt: nil, now: now)

            // Then it is neither due nor pending any more
            #expect(
                try await OutboxRepository(database).dueWebhooks(now: now.addingTimeInterval(3600), limit: 10).isEmpty)
            #expect(try await OutboxRepository(database).pendingWebhookCount() == 0)
        }
    }

    @Test func claimedNotificationsAreLeasedToOnePoller() async throws {
        try await databaseWithNotifications(2) { database in
            let now = t0.addingTimeInterval(10)

            // When the notifier claims due notifications with a 30 second lease
            let claimed = try await OutboxRepository(database).claimDueWebhooks(
                now: now, limit: 10, leaseUntil: now.addingTimeInterval(30))

            // Then a second poll during the lease gets none, and after it gets them back
            #expect(claimed.map(\.receiptID) == ["r1", "r2"])
            #expect(
                try await OutboxRepository(database).claimDueWebhooks(
                    now: now, limit: 10, leaseUntil: now.addingTimeInterval(30)
                )
                .isEmpty)
            #expect(
                try await OutboxRepository(database).dueWebhooks(now: now.addingTimeInterval(30), limit: 10).count == 2)
        }
    }
}
