import Database
import Foundation
import Logging
import Notifier
import PipelineTesting
import Repositories
import ServiceLifecycle
import SettlementWriter
import Testing

@Suite struct ShutdownTests {
    /// Runs `notifier` in a service group, lets `whileRunning` act, shuts the group down
    /// gracefully and returns how long the group took to return after that.
    func runThenShutDown(_ notifier: Notifier, whileRunning: () async throws -> Void) async throws -> Duration {
        var logger = Logger(label: "service-group")
        logger.logLevel = .warning
        let group = ServiceGroup(configuration: .init(services: [notifier], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await whileRunning()
            let clock = ContinuousClock()
            let started = clock.now
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return clock.now - started
        }
    }

    @Test func anIdleNotifierStopsPromptlyWithoutWaitingOutItsPoll() async throws {
        try await NotifierHarness.with { harness async throws in
            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) {
                receiver async throws in
                // Given a notifier with a long poll interval and nothing to do
                let notifier = harness.notifier(url: receiver.url, pollInterval: .seconds(30))

                // When the group shuts down
                let took = try await runThenShutDown(notifier) { try await Task.sleep(for: .milliseconds(100)) }

                // Then it returned at once rather than finishing its sleep (well under the 30 s
                // poll; the bound is loose because process-level tests share the 2 cores)
                #expect(took < .seconds(20))
            }
        }
    }

    @Test func runDeliversWhatComesDueAndFinishesInFlightDeliveriesOnShutdown() async throws {
        try await NotifierHarness.with { harness async throws in
            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) {
                receiver async throws in
                // Given a running notifier and a receiver slow to answer
                receiver.setResponseDelay(.milliseconds(500))
                let notifier = harness.notifier(url: receiver.url)
                let rows = try await Fixture.notifications(3, in: harness.database)

                let took = try await runThenShutDown(notifier) {
                    // When the rows are in flight and the group shuts down
                    try await receiver.waitFor(count: 3)
                    #expect(try await OutboxRepository(harness.database).pendingWebhookCount() == 3)
                }

                // Then the in-flight deliveries finished and were recorded before run returned
                #expect(took < .seconds(15))
                #expect(try await OutboxRepository(harness.database).pendingWebhookCount() == 0)
                for row in rows {
                    #expect(try await harness.row(row.id) == OutboxRow(status: "delivered", attempts: 1))
                }
                #expect(receiver.received.count == 3)
            }
        }
    }

    @Test func runKeepsDeliveringNewRowsAndRetriesOnItsOwn() async throws {
        try await NotifierHarness.with { harness async throws in
            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) {
                receiver async throws in
                // Given a running notifier with a receiver that fails the first request
                receiver.failFirst(1)
                let notifier = harness.notifier(url: receiver.url)

                _ = try await runThenShutDown(notifier) {
                    // When a row appears, then its retry comes due
                    let row = try await #require(try Fixture.notifications(1, in: harness.database).first)
                    try await receiver.waitFor(count: 1)
                    #expect(
                        await eventually(timeout: .seconds(5)) { (try? await harness.row(row.id))?.attempts == 1 })
                    harness.clock.advance(by: 1)

                    // Then the loop sends it again without being asked
                    let accepted = try await receiver.waitFor(count: 1, where: \.wasAccepted)
                    #expect(accepted.map(\.id) == [row.id])
                    #expect(
                        await eventually(timeout: .seconds(5)) {
                            (try? await harness.row(row.id))?.status == "delivered"
                        })
                }
            }
        }
    }

    @Test func aDisabledNotifierWaitsForShutdownAndSaysWhy() async throws {
        try await NotifierHarness.with { harness async throws in
            try await Fixture.notifications(1, in: harness.database)
            let notifier = harness.notifier(url: nil)

            let took = try await runThenShutDown(notifier) { try await Task.sleep(for: .milliseconds(100)) }

            // Promptly, not after a poll; generous, because the suite shares 2 cores with process tests.
            #expect(took < .seconds(20))
            #expect(try await OutboxRepository(harness.database).pendingWebhookCount() == 1)
            #expect(harness.logs.all.filter { $0.message.contains("IAP_WEBHOOK_URL") }.count == 1)
        }
    }
}
