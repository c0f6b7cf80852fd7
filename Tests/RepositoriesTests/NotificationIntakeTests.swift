import Database
import Foundation
import PipelineCore
import PipelineTesting
import SettlementWriter
import Testing

@testable import DatabaseTesting
@testable import Repositories

/// An App Store Server Notification from intake to its final status.
@Suite struct NotificationIntakeTests {
    let catalog = Fixture.catalog
    let t0 = Fixture.t0

    @Test(arguments: TestBackend.allCases) func theSamePayloadIsOneNotification(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { database in
            let notifications = NotificationRepository(database)
            // When Apple posts a payload, posts it again, and posts another
            let first = try await notifications.acceptNotification(
                id: "n1", app: "", payload: "JWS-A", payloadHash: Fixture.hash("JWS-A"), now: t0)
            let resent = try await notifications.acceptNotification(
                id: "n2", app: "", payload: "JWS-A", payloadHash: Fixture.hash("JWS-A"), now: t0)
            let other = try await notifications.acceptNotification(
                id: "n3", app: "", payload: "JWS-B", payloadHash: Fixture.hash("JWS-B"), now: t0)

            // Then the resend is the first row, and the other is new
            #expect(first == ("n1", true))
            #expect(resent == ("n1", false))
            #expect(other == ("n3", true))
            #expect(try await notifications.notification(id: "n2") == nil)
            let n1 = try #require(try await notifications.notification(id: "n1"))
            #expect(n1.status == .received)
            #expect(n1.attempts == 0)
            #expect(n1.createdAt == t0)
            #expect(n1.publishedAt == nil)
        }
    }

    @Test(arguments: TestBackend.allCases) func theRelayPublishesNotificationsWithReceiptsOldestFirst(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given receipts and notifications accepted in turns, a second apart
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")], now: t0)
            try await database.acceptNewNotifications(["n1"], now: t0.addingTimeInterval(1))
            try await database.acceptNew([Fixture.receipt("r2", account: "a1")], now: t0.addingTimeInterval(2))
            try await database.acceptNewNotifications(["n2"], now: t0.addingTimeInterval(3))

            // When the relay reads what is unpublished
            let all = try await IntakeRepository(database).unpublished(limit: 10)
            let firstThree = try await IntakeRepository(database).unpublished(limit: 3)

            // Then both kinds come, oldest first, notifications as signed payloads without an account
            #expect(all.map(\.id) == ["r1", "n1", "r2", "n2"])
            #expect(firstThree.map(\.id) == ["r1", "n1", "r2"])
            let n1 = all[1]
            #expect(n1.evidence == .notification(signedPayload: "signed-payload-of-n1"))
            #expect(n1.accountID == "")
            #expect(n1.accountID.isEmpty)
            #expect(n1.submittedAt == t0.addingTimeInterval(1))

            // When the broker confirms a receipt and a notification
            try await IntakeRepository(database).markPublished(["r1", "n1"], at: t0.addingTimeInterval(5))

            // Then they are not published again, and the notification is validating
            #expect(try await IntakeRepository(database).unpublished(limit: 10).map(\.id) == ["r2", "n2"])
            let published = try #require(try await NotificationRepository(database).notification(id: "n1"))
            #expect(published.status == .validating)
            #expect(published.publishedAt == t0.addingTimeInterval(5))

            // And a notification that ended before it was confirmed is not published either
            _ = try await SettlementRepository(database).apply(
                [Fixture.notified("n2", "TEST", uuid: "U2", nil)], catalog: catalog, now: t0)
            #expect(try await IntakeRepository(database).unpublished(limit: 10).map(\.id) == ["r2"])
        }
    }

    @Test(arguments: TestBackend.allCases) func rejectedRetryingAndDeadVerdictsEndANotificationWithTheirReason(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            try await database.acceptNewNotifications(["n1", "n2"])

            // When verification fails for good for one, and the other retries and is dead-lettered
            // (a dead letter carries no notification: only the id, as the fulfiller decodes it)
            let results = try await SettlementRepository(database).apply(
                [
                    Fixture.verdict(.rejected, "n1", account: "", reason: "bad_signature", attempts: 1),
                    Fixture.verdict(.retrying, "n2", account: "", reason: "timeout", attempts: 2),
                    Fixture.verdict(.dead, "n2", account: "", reason: "attempts_exhausted: timeout", attempts: 8),
                    Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1")),
                ], catalog: catalog, now: t0)

            // Then each ends so, and a late valid verdict changes nothing
            #expect(
                results == [
                    .notificationApplied(notificationID: "n1", status: .rejected, reason: "bad_signature"),
                    .notificationApplied(notificationID: "n2", status: .retrying, reason: "timeout"),
                    .notificationApplied(notificationID: "n2", status: .dead, reason: "attempts_exhausted: timeout"),
                    .notificationAlreadyFinal(notificationID: "n1", status: .rejected),
                ])
            #expect(try await NotificationRepository(database).notification(id: "n2")?.attempts == 8)
            // And no receipt webhook was written for them
            #expect(try await database.allWebhooks().isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func consumptionRequestsAreListedAndTestAndUnknownTypesOnlyRecorded(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: catalog, now: t0)
            try await database.acceptNewNotifications(["n1", "n2", "n3", "n4"])

            // When a CONSUMPTION_REQUEST (twice, re-signed), a TEST and a type this build does not know arrive
            let results = try await SettlementRepository(database).apply(
                [
                    Fixture.notified("n1", "CONSUMPTION_REQUEST", uuid: "U1", Fixture.purchase("t1")),
                    Fixture.notified("n2", "CONSUMPTION_REQUEST", uuid: "U1", Fixture.purchase("t1")),
                    Fixture.notified("n3", "TEST", uuid: "U3", nil),
                    Fixture.notified("n4", "PRICE_INCREASE", uuid: "U4", Fixture.purchase("t1")),
                ], catalog: catalog, now: t0)

            // Then all are applied, and nothing moved
            #expect(
                results == [
                    .notificationApplied(notificationID: "n1", status: .applied, reason: "consumption_request"),
                    .notificationApplied(notificationID: "n2", status: .applied, reason: "duplicate of n1"),
                    .notificationApplied(notificationID: "n3", status: .applied, reason: nil),
                    .notificationApplied(notificationID: "n4", status: .applied, reason: "ignored"),
                ])
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 100])
            #expect(try await database.allWebhooks().map(\.type) == [.receiptCredited])

            // And the operator sees the consumption request once, with whose purchase it is
            let requests = try await NotificationRepository(database).consumptionRequests()
            #expect(requests.count == 1)
            let request = try #require(requests.first)
            #expect(request.notificationID == "n1")
            #expect(request.notificationUUID == "U1")
            #expect(request.transactionID == "t1")
            #expect(request.productID == Fixture.coins)
            #expect(request.accountID == "a1")
            #expect(try await NotificationRepository(database).notification(id: "n3")?.type == "TEST")
        }
    }

    @Test(arguments: TestBackend.allCases) func receiptAndNotificationVerdictsAreNeverTakenForEachOther(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            try await database.acceptNewNotifications(["n1"])

            // When a notification verdict names a receipt, and a valid verdict without its
            // notification names a notification
            let results = try await SettlementRepository(database).apply(
                [
                    Fixture.notified("r1", "REFUND", uuid: "U1", Fixture.purchase("t1")),
                    Fixture.valid("n1", account: "", [Fixture.purchase("t1")]),
                ], catalog: catalog, now: t0)

            // Then both are refused, and neither row changed
            guard case .invalid(receiptID: "r1", _) = results[0], case .invalid(receiptID: "n1", _) = results[1] else {
                Issue.record("expected both invalid, got \(results)")
                return
            }
            #expect(try await ReceiptRepository(database).receipt(id: "r1")?.status == .received)
            #expect(try await NotificationRepository(database).notification(id: "n1")?.status == .received)
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == [:])

            // And an id cannot be both a receipt's and a notification's
            await #expect(throws: (any Error).self) {
                try await NotificationRepository(database).acceptNotification(
                    id: "r1", app: "", payload: "JWS-X", payloadHash: Fixture.hash("JWS-X"), now: t0)
            }
            let outcomes = try await IntakeRepository(database).accept([Fixture.receipt("n1", account: "a1")], now: t0)
            guard case .invalid = outcomes.first else {
                Issue.record("expected invalid, got \(outcomes)")
                return
            }
        }
    }

    @Test(arguments: TestBackend.allCases) func notificationDetailsEncodeWithSnakeCaseKeys(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNewNotifications(["n1"])
            _ = try await SettlementRepository(database).apply(
                [Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: t0))], catalog: catalog,
                now: t0)
            let details = try #require(try await NotificationRepository(database).notification(id: "n1"))
            let json = try Fixture.json(
                String(decoding: try WireCoding.encoder().encode(details), as: UTF8.self))
            #expect(json["notification_id"] as? String == "n1")
            #expect(json["notification_uuid"] as? String == "U1")
            #expect(json["status"] as? String == "applied")
            #expect(json["reason"] as? String == "refunded_before_credit")
            #expect(json["transaction_id"] as? String == "t1")
            #expect(json["environment"] as? String == "Sandbox")
        }
    }

    @Test(arguments: TestBackend.allCases) func aFormerKeyFindsThatStoresRowAndNoOtherStores(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            // Given a push the release with Google built in stored under Pub/Sub's bare message id
            let payload = #"{"kind":"test","message_id":"42","package_name":"com.example.game"}"#
            let old = NotificationRow(
                id: "old", app: "", payload: payload, payloadHash: Fixture.hash(payload), now: t0, store: "google",
                messageID: "42")
            try await database.transaction { db in try await db.insert(old, into: "store_notifications") }
            let notifications = NotificationRepository(database)

            // When another store's message of that id names the same former key, then Google's again
            let other = try await notifications.acceptStoreNotification(
                id: "h1", app: "", store: "huawei", messageID: "42", formerKeys: ["42"], payload: payload, now: t0)
            let again = try await notifications.acceptStoreNotification(
                id: "g1", app: "", store: "google", messageID: "42", formerKeys: ["42"], payload: payload, now: t0)

            // Then Google's finds the old row and stores nothing; the other store's is its own
            #expect(other == ("h1", true))
            #expect(again == ("old", false))
            #expect(try await notifications.notification(id: "g1") == nil)
        }
    }
}
