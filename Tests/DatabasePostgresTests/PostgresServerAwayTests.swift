import Database
import Drills
import Foundation
import Logging
import Testing
import _ConnectionPoolModule

@testable import DatabasePostgres

/// A server that takes no connection (stopped, restarting after a crash) is said at once, as
/// a transient error the stages pause on and the intake answers 503 for, not after the lease
/// timeout; and a lease the pool gives up on itself is the same error, not the work's fault.
@Suite struct PostgresServerAwayTests {
    @Test func aLeaseOnAServerThatTakesNoConnectionFailsAtOnceAsUnreachable() async throws {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .critical
        // Nothing listens there: each connect is refused.
        let location = try PostgresLocation(
            url: "postgres://iap_test@127.0.0.1:\(LoopbackPort.free())/iap?sslmode=disable")
        let database = PostgresPipelineDatabase(location: location, connections: 2, logger: logger)
        for _ in 0..<2 {
            let started = ContinuousClock.now
            await #expect {
                try await database.transaction { db in try await db.execute("SELECT 1") }
            } throws: { error in
                SQLError.outage(error) == "unreachable" && "\(error)".contains("refused")
            }
            // Not the lease timeout's 15 s (a generous bound, not a timing).
            #expect(ContinuousClock.now - started < .seconds(8))
        }
        await database.close()
    }

    @Test func aLeaseThePoolGaveUpOnIsUnreachable() {
        let failed = PostgresPipelineDatabase.leaseFailed(ConnectionPoolError.connectionCreationCircuitBreakerTripped)
        #expect(SQLError.outage(failed) == "unreachable")
        #expect(SQLError.blame(failed) != .work)
        // The work's own errors are kept as they are.
        #expect(SQLError.blame(PostgresPipelineDatabase.leaseFailed(SQLError.constraint("unique"))) == .work)
        #expect(PostgresPipelineDatabase.leaseFailed(CancellationError()) is CancellationError)
    }
}
