import Database
import DatabasePostgres
import Drills
import Foundation
import Logging
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

/// A transaction the server never answers (a server gone silent: here a relay that drops
/// what it reads, whose kernel still acknowledges it, so only the work's own timeout can
/// notice) is ended at the database's work timeout, as a transient error, and the pool goes
/// on once the server answers again.
@Suite struct PostgresWorkTimeoutTests {
    @Test func aTransactionNotAnsweredInTimeIsUnreachableAndTheNextOneRuns() async throws {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .critical
        let relay = try LoopbackRelay(address: "127.0.0.1", target: PostgresFixture.server.port)
        defer { relay.close() }
        var location = PostgresFixture.server
        location.servers = [.init(host: relay.address, port: relay.port)]
        let database = PostgresPipelineDatabase(
            location: location, connections: 1, workTimeout: .seconds(2), logger: logger)
        #expect(try await database.snapshot { try await $0.value("SELECT 1 AS one", as: Int.self) } == 1)

        // When the server goes silent with a connection in the pool
        relay.silence()
        let started = ContinuousClock.now
        await #expect {
            try await database.transaction { db in try await db.execute("SELECT 1") }
        } throws: { error in
            if case SQLError.unreachable = error { return true }
            return false
        }
        // Then the work ended at its timeout, not the kernel's quarter of an hour (a generous
        // bound, not a timing)
        let took = ContinuousClock.now - started
        #expect(took < .seconds(15), "\(took)")
        print("silent PostgreSQL, a stage's transaction: ended in \(took)")

        // And once the server answers again, a new connection works
        relay.resume()
        let one = try await database.snapshot { db in try await db.value("SELECT 1 AS one", as: Int.self) }
        #expect(one == 1)
        await database.close()
    }
}
