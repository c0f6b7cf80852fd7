import Database
import DatabasePostgres
import Foundation
import Logging
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization
import Testing

@testable import DatabaseTesting

/// What a listener hears of the commits that signal a channel (PostgreSQL's `LISTEN` and
/// `NOTIFY`): each committed one, from any process, none rolled back, and again after its
/// connection was cut.
@Suite struct PostgresCommitSignalsTests {
    @Test func committedSignalsAreHeardRolledBackOnesAreNotAndACutListenerComesBack() async throws {
        try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            let signals = try #require(database.commitSignals)
            let heard = Heard()
            let listening = Task { await signals.listen(to: .outbox) { heard.add() } }
            defer { listening.cancel() }
            // Once connected, it is told to look (whatever came before it listened)
            try await heard.wait(for: 1)

            // A commit of this process that signalled is heard
            try await database.transaction { db in try await db.signal(.outbox) }
            try await heard.wait(for: 2)

            // One rolled back is not, nor a commit that did not signal; another process's is
            await #expect(throws: Rollback.self) {
                try await database.transaction { db in
                    try await db.signal(.outbox)
                    throw Rollback()
                }
            }
            try await database.transaction { db in try await db.execute("SELECT 1") }
            let other = PostgresPipelineDatabase(location: database.location, connections: 1, logger: Self.logger)
            try await other.transaction { db in try await db.signal(.outbox) }
            try await heard.wait(for: 3)
            // Signals reach a listener in commit order: anything of the rollback would be here by now.
            try await Task.sleep(for: .milliseconds(300))
            #expect(heard.count == 3)

            // A credit that writes webhooks signals them
            try await other.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await SettlementRepository(other).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: Fixture.catalog,
                now: Fixture.t0)
            try await heard.wait(for: 4)

            // When the server cuts the listening session, it connects again and is told to look
            try await other.administer(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND query LIKE 'LISTEN%'
                """)
            try await heard.wait(for: 5)
            try await other.transaction { db in try await db.signal(.outbox) }
            try await heard.wait(for: 6)
            await other.close()
        }
    }

    private struct Rollback: Error {}

    static var logger: Logger {
        var logger = Logger(label: "commit-signals-test")
        logger.logLevel = .critical
        return logger
    }
}
