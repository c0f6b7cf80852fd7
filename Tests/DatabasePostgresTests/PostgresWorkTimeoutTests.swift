import Database
import DatabasePostgres
import Foundation
import Logging
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

/// A transaction the server never answers (as a server cut off by the network) is ended at
/// the database's work timeout, as a transient error, and the pool goes on.
@Suite struct PostgresWorkTimeoutTests {
    @Test func aTransactionNotAnsweredInTimeIsUnreachableAndTheNextOneRuns() async throws {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .critical
        let database = PostgresPipelineDatabase(
            location: PostgresFixture.server, connections: 1, workTimeout: .seconds(1), logger: logger)
        let started = ContinuousClock.now
        await #expect {
            try await database.transaction { db in try await db.execute("SELECT pg_sleep(60)") }
        } throws: { error in
            if case SQLError.unreachable = error { return true }
            return false
        }
        // Ended by the timeout, not by the server's 60 s (a generous bound, not a timing).
        #expect(ContinuousClock.now - started < .seconds(45))
        let one = try await database.snapshot { db in try await db.value("SELECT 1 AS one", as: Int.self) }
        #expect(one == 1)
        await database.close()
    }
}
