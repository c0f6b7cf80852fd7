import Database
import DatabasePostgres
import DatabaseSQLite
import Foundation
import HTTPClient
import Notifier
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

/// A notifier hears another process's commit of webhooks (PostgreSQL's `LISTEN`/`NOTIFY`,
/// a socket beside an SQLite file) and delivers them then, not at its next poll.
@Suite struct ListenedOutboxTests {
    @Test func onPostgreSQLAWebhookCommittedByAnotherProcessIsDeliveredWithoutWaitingForThePoll() async throws {
        try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            try await deliversWithoutPolling(database) {
                let other = PostgresPipelineDatabase(
                    location: database.location, connections: 1, logger: Fixture.logger())
                try await Fixture.credit(2, in: other)
                await other.close()
            }
        }
    }

    @Test func onSQLiteAWebhookCommittedByAnotherProcessIsDeliveredWithoutWaitingForThePoll() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        try await deliversWithoutPolling(database) {
            try await Fixture.credit(2, in: try SQLiteDatabase(path: directory.file("iap.sqlite")))
        }
    }

    /// `creditElsewhere` credits two receipts in another process's connection.
    private func deliversWithoutPolling(
        _ database: any SQLDatabase, creditElsewhere: () async throws -> Void
    ) async throws {
        let signals = try #require(database.commitSignals)
        let client = try CurlHTTPClient(configuration: .init(timeout: .seconds(5), connectTimeout: .seconds(2)))
        try await withWebhookReceiver(secret: Fixture.secret.encoded) { receiver async throws in
            // Given a notifier that polls only every two minutes, rung by the listener
            let doorbell = Doorbell()
            var configuration = Notifier.Configuration(
                webhookURL: receiver.url, secret: Fixture.secret, pollInterval: .seconds(120), batchSize: 64,
                maxInFlight: 8, requestTimeout: .seconds(5), schedule: Fixture.schedule())
            configuration.doorbell = doorbell
            let notifier = Notifier(
                configuration: configuration, database: database, client: client, logger: Fixture.logger())
            let running = Task { try await notifier.run() }
            let listening = Task { try await OutboxListener(signals: signals, doorbell: doorbell).run() }
            defer {
                running.cancel()
                listening.cancel()
            }
            // Its first look, at start, found nothing
            try await Task.sleep(for: .milliseconds(500))

            // When another process credits two receipts
            try await creditElsewhere()

            // Then both webhooks arrive long before the next poll would have sent them
            let deadline = ContinuousClock.now + .seconds(30)
            while receiver.received.count < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(receiver.received.count == 2)
            #expect(Set(receiver.received.compactMap(\.id)).count == 2)
        }
        await client.shutdown()
    }
}
