import Database
import DatabaseSQLite
import Foundation
import Logging
import Notifier
import PipelineTesting
import Repositories
import ServiceLifecycle
import SettlementWriter
import Testing

@Suite struct BusyDatabaseTests {
    @Test func aBusyOutboxIsLoggedAndRetriedNotFatal() async throws {
        try await NotifierHarness.with { harness async throws in
            let row = try await #require(try Fixture.notifications(1, in: harness.database).first)
            // Given another program holding the write lock (a plain connection, outside this
            // program's lock), and a notifier that waits only 50 ms for it
            let other = try SQLiteFile(path: harness.path)
            let (held, holding) = AsyncStream.makeStream(of: Void.self)
            let (released, release) = AsyncStream.makeStream(of: Void.self)
            defer { release.finish() }
            let holder = Task {
                defer { holding.finish() }  // should BEGIN fail: the test goes on, and fails, instead of hanging
                try await other.transaction { _ in
                    holding.finish()
                    for await _ in released {}
                }
            }
            for await _ in held {}
            let impatient = try SQLiteDatabase(
                path: harness.path, configuration: StoreConfiguration(busyTimeout: 0.05))

            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) {
                receiver async throws in
                let notifier = harness.notifier(url: receiver.url, database: impatient)

                // Then one batch reports the busy database as transient
                await #expect { try await notifier.runOnce() } throws: { SQLError.isTransient($0) }

                var logger = Logger(label: "service-group")
                logger.logLevel = .warning
                let group = ServiceGroup(configuration: .init(services: [notifier], logger: logger))
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }

                    // And the running service logs it and keeps polling
                    #expect(
                        await eventually(timeout: .seconds(10)) {
                            harness.logs.all.filter { $0.level == .warning && $0.message.contains("busy") }.count >= 2
                        })
                    #expect(receiver.received.isEmpty)

                    // When the lock is released, the notification goes out
                    release.finish()
                    try await holder.value
                    let accepted = try await receiver.waitFor(count: 1, where: \.wasAccepted)
                    #expect(accepted.map(\.id) == [row.id])

                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                }
                #expect(try await harness.row(row.id)?.status == "delivered")
            }
        }
    }
}
