import Database
import Foundation
import Notifier
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@Suite struct DeliveryTests {
    @Test func everyDueNotificationIsDeliveredOnceSignedUnderItsOwnId() async throws {
        try await NotifierHarness.with { harness async throws in
            // Given five credited receipts, one webhook each
            let rows = try await Fixture.notifications(5, in: harness.database)
            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) {
                receiver async throws in
                let notifier = harness.notifier(url: receiver.url)

                // When the notifier runs a batch
                let attempted = try await notifier.runOnce()

                // Then each row arrived once, with its id, its stored body and a good signature
                #expect(attempted == 5)
                let received = receiver.received
                #expect(received.count == 5)
                #expect(Set(received.compactMap(\.id)) == Set(rows.map(\.id)))
                for row in rows {
                    let delivery = try #require(receiver.deliveries(for: row.id).first)
                    #expect(receiver.deliveries(for: row.id).count == 1)
                    #expect(delivery.bodyString == row.body)
                    #expect(delivery.signature == .valid)
                    #expect(delivery.header("content-type") == "application/json")
                    #expect(delivery.timestamp == 1_750_000_000)
                    // The notifier's own verifier agrees with the receiver's independent one
                    try WebhookSigner(secret: Fixture.secret).verify(
                        id: delivery.id, timestamp: delivery.header("webhook-timestamp"),
                        signature: delivery.header("webhook-signature"), body: delivery.body,
                        now: harness.clock.now)
                    #expect(try await harness.row(row.id) == OutboxRow(status: "delivered", attempts: 1))
                }
                #expect(try await OutboxRepository(harness.database).pendingWebhookCount() == 0)

                // And nothing is sent again, however late the next poll
                harness.clock.advance(by: 86_400)
                #expect(try await notifier.runOnce() == 0)
                #expect(receiver.received.count == 5)
            }
        }
    }

    @Test func aFailedDeliveryIsRetriedWithTheSameIdThenDelivered() async throws {
        try await NotifierHarness.with { harness async throws in
            let row = try await #require(try Fixture.notifications(1, in: harness.database).first)
            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) {
                receiver async throws in
                // Given a receiver that fails the first two requests
                receiver.failFirst(2)
                let notifier = harness.notifier(url: receiver.url)

                // When the first attempt fails
                #expect(try await notifier.runOnce() == 1)

                // Then it is pending with one attempt and the error, and not due before its delay
                #expect(
                    try await harness.row(row.id)
                        == OutboxRow(
                            status: "pending", attempts: 1, lastError: "HTTP 503",
                            nextAttemptAt: Fixture.t0.addingTimeInterval(1)))
                #expect(try await notifier.runOnce() == 0)

                // When time passes and it fails once more, then succeeds
                harness.clock.advance(by: 1)
                #expect(try await notifier.runOnce() == 1)
                #expect(try await harness.row(row.id)?.attempts == 2)
                harness.clock.advance(by: 1)
                #expect(try await notifier.runOnce() == 1)

                // Then the receiver saw three requests for the same event, each freshly signed
                let deliveries = receiver.deliveries(for: row.id)
                #expect(receiver.received.count == 3)
                #expect(deliveries.map(\.status) == [503, 503, 200])
                #expect(deliveries.map(\.timestamp) == [1_750_000_000, 1_750_000_001, 1_750_000_002])
                #expect(deliveries.allSatisfy { $0.signature == .valid && $0.bodyString == row.body })
                #expect(try await harness.row(row.id) == OutboxRow(status: "delivered", attempts: 3))
            }
        }
    }

    @Test func whenAttemptsAreUsedUpTheRowFailsForGoodAndIsNotSentAgain() async throws {
        try await NotifierHarness.with { harness async throws in
            let rows = try await Fixture.notifications(2, in: harness.database)
            let doomed = rows[0]
            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) {
                receiver async throws in
                // Given a receiver that answers 410 Gone for one event, and three attempts allowed
                receiver.fail(id: doomed.id, status: 410)
                let notifier = harness.notifier(url: receiver.url, schedule: Fixture.schedule(maxAttempts: 3))

                // When the notifier keeps polling past every retry
                var attempted = 0
                for _ in 0..<6 {
                    attempted += try await notifier.runOnce()
                    harness.clock.advance(by: 1)
                }
                harness.clock.advance(by: 86_400)
                attempted += try await notifier.runOnce()

                // Then the failing event was tried exactly three times and marked failed,
                // while the other was delivered at once
                #expect(attempted == 4)
                #expect(receiver.deliveries(for: doomed.id).map(\.status) == [410, 410, 410])
                #expect(
                    try await harness.row(doomed.id) == OutboxRow(status: "failed", attempts: 3, lastError: "HTTP 410"))
                #expect(receiver.deliveries(for: rows[1].id).map(\.status) == [200])
                #expect(try await OutboxRepository(harness.database).pendingWebhookCount() == 0)

                // And the warning names the event and the receipt, never the body
                let warnings = harness.logs.all.filter { $0.level == .warning }
                #expect(warnings.count == 1)
                #expect(warnings.first?.metadata["event_id"] == doomed.id)
                #expect(warnings.first?.metadata["receipt_id"] == doomed.receiptID)
                #expect(harness.logs.all.allSatisfy { !$0.fullText.contains(doomed.body) })
                #expect(harness.logs.all.allSatisfy { !$0.fullText.contains("\"data\"") })
            }
        }
    }

    @Test func aReceiverThatIsDownCostsAnAttemptThenGetsItWhenBack() async throws {
        try await NotifierHarness.with { harness async throws in
            let row = try await #require(try Fixture.notifications(1, in: harness.database).first)
            // Given a port nothing listens on any more
            let port = try await withWebhookReceiver(secret: nil) { $0.port }
            let notifier = harness.notifier(url: "http://127.0.0.1:\(port)\(WebhookReceiver.path)")

            // When the notifier tries
            #expect(try await notifier.runOnce() == 1)

            // Then the failure is recorded for a retry
            let failed = try #require(try await harness.row(row.id))
            #expect(failed.status == "pending")
            #expect(failed.attempts == 1)
            #expect(failed.lastError?.contains("connectionRefused") == true)

            // When the receiver comes back on that port and the retry is due
            try await withWebhookReceiver(secret: Fixture.secret.encoded, port: port, now: harness.clock.function) {
                receiver async throws in
                harness.clock.advance(by: 1)
                #expect(try await notifier.runOnce() == 1)

                // Then it is delivered
                #expect(receiver.deliveries(for: row.id).map(\.status) == [200])
                #expect(receiver.deliveries(for: row.id).first?.signature == .valid)
                #expect(try await harness.row(row.id) == OutboxRow(status: "delivered", attempts: 2))
            }
        }
    }

    @Test func overlappingPollsNeverSendTheSameNotificationTwice() async throws {
        try await NotifierHarness.with { harness async throws in
            // Given twenty notifications, a receiver slow to answer and batches of eight
            let rows = try await Fixture.notifications(20, in: harness.database)
            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) {
                receiver async throws in
                receiver.setResponseDelay(.milliseconds(300))
                let notifier = harness.notifier(url: receiver.url, batchSize: 8)

                // When three polls run while the first batch is still in flight
                async let first = notifier.runOnce()
                try await receiver.waitFor(count: 8)
                async let second = notifier.runOnce()
                async let third = notifier.runOnce()
                let counts = try await [first, second, third]

                // Then they shared the rows between them and nothing was sent twice
                #expect(counts.reduce(0, +) == 20)
                #expect(counts[0] == 8)
                #expect(receiver.received.count == 20)
                #expect(Set(receiver.received.compactMap(\.id)) == Set(rows.map(\.id)))
                #expect(try await OutboxRepository(harness.database).pendingWebhookCount() == 0)
                // And a poll while they were in flight found nothing left to claim
                #expect(try await notifier.runOnce() == 0)
            }
        }
    }

    @Test func inFlightDeliveriesAreBoundedByMaxInFlight() async throws {
        try await NotifierHarness.with { harness async throws in
            try await Fixture.notifications(6, in: harness.database)
            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) {
                receiver async throws in
                // Given a receiver that holds each answer 400 ms, and room for two in flight
                receiver.setResponseDelay(.milliseconds(400))
                let notifier = harness.notifier(url: receiver.url, maxInFlight: 2)

                // When a batch of six runs
                async let attempted = notifier.runOnce()
                try await receiver.waitFor(count: 2)
                try await Task.sleep(for: .milliseconds(150))
                let early = receiver.received.count

                // Then only two were sent until the first answers came, and all six in the end

                #expect(try await attempted == 6)
                #expect(early == 2)
                #expect(receiver.received.count == 6)
            }
        }
    }

    @Test func withoutAURLNothingIsSentAndRowsStayPending() async throws {
        try await NotifierHarness.with { harness async throws in
            try await Fixture.notifications(2, in: harness.database)
            let notifier = harness.notifier(url: nil)

            #expect(try await notifier.runOnce() == 0)
            #expect(try await OutboxRepository(harness.database).pendingWebhookCount() == 2)
        }
    }
}
