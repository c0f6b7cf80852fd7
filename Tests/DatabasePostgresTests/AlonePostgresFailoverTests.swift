import Database
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization
import Testing

@testable import DatabasePostgres
@testable import DatabaseTesting

/// A real primary and synchronous standby (`scripts/cluster-postgres.sh`, each server in a
/// network namespace of its own): the primary stopped hard, the standby promoted, and the same
/// database object, given both servers, writing to the new primary without a restart and
/// without losing a commit it acknowledged. It builds servers and namespaces, so it runs in
/// the pass of tests that have the machine alone (`IAP_TEST_ALONE=1`); the cluster is torn
/// down even when a test fails.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"),
    .enabled(if: PostgresCluster.isAvailable, "needs root, iproute2 and PostgreSQL 15's server programs"))
struct AlonePostgresFailoverTests {
    static var logger: Logger {
        var logger = Logger(label: "failover")
        logger.logLevel = .error
        return logger
    }

    /// Runs `body` with a database at `location`, closed afterwards whatever happens.
    static func withDatabase<T>(
        _ location: PostgresLocation = PostgresCluster.location, _ body: (PostgresPipelineDatabase) async throws -> T
    ) async throws -> T {
        let database = PostgresPipelineDatabase(location: location, logger: logger)
        do {
            let result = try await body(database)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    @Test func theDatabaseFollowsEachPromotionAndKeepsEveryAcknowledgedCommit() async throws {
        try await PostgresCluster.with { cluster in
            try await Self.withDatabase { database in try await followsPromotions(database, cluster) }
        }
    }

    func followsPromotions(_ database: PostgresPipelineDatabase, _ cluster: PostgresCluster) async throws {
        // Given a database naming both servers, writing to pg1
        try await database.migrate()
        #expect(database.primary.current == 0)
        let writer = FailoverWriter(database)

        // When pg1 is stopped hard while receipts are accepted and credited, and pg2 promoted
        let first = try await writer.through {
            try await cluster.kill("pg1")
        } promotion: {
            try await cluster.promote("pg2")
        }

        // Then the same object writes to pg2, every failure on the way a transient one (how
        // many and how long are printed below, not judged: they depend on the machine)
        #expect(database.primary.current == 1)
        #expect(first.failures.allSatisfy { SQLError.blame($0) != .work }, "\(first.failures)")
        // And every commit acknowledged before the kill is on pg2: the standby had it first
        try await writer.expectEveryAcknowledgedCommit(in: database, of: first.acknowledgedBeforeKill)

        // When pg1 rejoins as pg2's synchronous standby (pg_rewind after the immediate stop), and
        // then pg2 is stopped hard and pg1 promoted in turn
        try await cluster.rejoin("pg1")
        let second = try await writer.through {
            try await cluster.kill("pg2")
        } promotion: {
            try await cluster.promote("pg1")
        }

        // Then the same object is back on pg1, with everything either primary acknowledged
        #expect(database.primary.current == 0)
        #expect(second.failures.allSatisfy { SQLError.blame($0) != .work }, "\(second.failures)")
        try await writer.expectEveryAcknowledgedCommit(in: database, of: second.acknowledgedBeforeKill)
        try await writer.creditTheRest()
        try await writer.expectEveryAcknowledgedCommit(in: database, of: writer.acknowledged)
        #expect(try await LedgerRepository(database).audit() == [])
        print(
            "failover figures: pg1→pg2 \(first), pg2→pg1 \(second), "
                + "\(writer.acknowledged.credited.count) receipts acknowledged")
    }

    @Test func theLeadMovesToTheNewPrimary() async throws {
        try await PostgresCluster.with { cluster in
            try await Self.withDatabase { one in
                try await Self.withDatabase { two in
                    try await Self.withDatabase(PostgresCluster.only("pg2")) { onPG2 in
                        try await leadMoves(one, two, onPG2, cluster)
                    }
                }
            }
        }
    }

    func leadMoves(
        _ one: PostgresPipelineDatabase, _ two: PostgresPipelineDatabase, _ onPG2: PostgresPipelineDatabase,
        _ cluster: PostgresCluster
    ) async throws {
        // Given two processes' databases naming both servers, and the first leading on pg1
        let first = one.leadership(of: "scheduler")
        let second = two.leadership(of: "scheduler")
        #expect(await first.isLeader())
        #expect(await !second.isLeader())

        // When pg1 is stopped hard and pg2 promoted
        try await cluster.kill("pg1")
        try await cluster.promote("pg2")

        // Then, asking as their schedulers do, exactly one of them leads, on pg2
        var leaders: [Bool] = []
        let settled = await eventually(timeout: .seconds(60), every: .milliseconds(500)) {
            leaders = [await first.isLeader(), await second.isLeader()]
            return leaders.filter { $0 }.count == 1
        }
        #expect(settled, "\(leaders)")
        let locks = try await onPG2.snapshot { session in
            try await session.value(
                "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted", as: Int.self)
        }
        #expect(locks == 1)
        // And it keeps the lead while the other keeps asking
        for _ in 0..<3 {
            let again = [await first.isLeader(), await second.isLeader()]
            #expect(again == leaders)
        }
    }

    @Test func aCommitWaitsForTheSynchronousStandbyAndCompletesWhenItIsBack() async throws {
        try await PostgresCluster.with { cluster in
            try await Self.withDatabase { database in
                try await database.migrate()

                // When the standby is stopped and a receipt is accepted
                try await cluster.kill("pg2")
                let done = Flag()
                let accepting = Task {
                    try await database.acceptNew([Fixture.receipt("waits", account: "a")])
                    done.set()
                }

                // Then the intake's commit is not acknowledged, nor seen, while only one server has it
                try await Task.sleep(for: .seconds(3))
                #expect(!done.isSet)
                let seen = try await database.snapshot { session in
                    try await session.value("SELECT count(*) AS n FROM receipts", as: Int.self)
                }
                #expect(seen == 0)
                // And it is once the standby is back (pg_rewind finds nothing to rewind)
                try await cluster.rejoin("pg2")
                try await accepting.value
                #expect(done.isSet)
                #expect(try await ReceiptRepository(database).receipt(id: "waits") != nil)
            }
        }
    }
}
