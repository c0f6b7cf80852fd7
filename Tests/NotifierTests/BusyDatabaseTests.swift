import Foundation
// GRDB: a plain connection holds the file's write lock, as another process (or the sqlite3
// shell) would, outside this program's own lock.
import GRDB
import Logging
import Notifier
import PipelineTesting
import ServiceLifecycle
import Store
import StoreSQLite
import Testing

@Suite struct BusyDatabaseTests {
    @Test func aBusyOutboxIsLoggedAndRetriedNotFatal() async throws {
        try await NotifierHarness.with { harness async throws in
            let row = try await #require(try Fixture.notifications(1, in: harness.database).first)
            // Given another process holding the write lock, and a notifier that waits only 50 ms for it
            var unsafe = Configuration()
            unsafe.allowsUnsafeTransactions = true
            let other = try DatabaseQueue(path: harness.path, configuration: unsafe)
            try other.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
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
                    try other.inDatabase { try $0.execute(sql: "ROLLBACK") }
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
