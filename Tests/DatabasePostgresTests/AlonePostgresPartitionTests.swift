import Database
import Drills
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import Testing

@testable import DatabasePostgres

/// The primary in use goes silent, not down: on its side (`iptables DROP` in its namespace, in
/// and out on 5432) every packet of every session is lost, the server keeps running. A writer
/// that accepts and credits receipts as the stages do notices within the dead-peer bound
/// (``PostgresTimeouts/deadPeer``, not the kernel's quarter of an hour), then resumes: on the
/// promoted standby, and (the other partition) on the same server once the network heals.
/// Nothing it was told committed is lost, nothing is credited twice. The measured times are
/// printed (`partition drill: …`). Alone: it builds the cluster of `scripts/cluster-postgres.sh`.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"),
    .enabled(if: PostgresCluster.isAvailable, "needs root, iproute2 and PostgreSQL 15's server programs"))
struct AlonePostgresPartitionTests {
    /// What a stage must never exceed: noticed, then resumed, within 30 s of the silence.
    static let bound: Duration = .seconds(30)

    static func silence(_ server: String) -> NetworkFaults.Fault {
        .silence(NetworkNamespace(name: server, address: PostgresCluster.address(server)), port: 5432)
    }

    @Test func aSilentPrimaryIsNoticedAndWorkResumesOnThePromotedStandbyThenAfterHealing() async throws {
        let faults = NetworkFaults()
        defer { faults.healAllBlocking() }
        try await PostgresCluster.with { cluster in
            try await AlonePostgresFailoverTests.withDatabase { database in
                try await database.migrate()
                #expect(database.timeouts == PostgresTimeouts(), "the drill measures the defaults")
                let writer = FailoverWriter(database)
                try await writer.writing {
                    try await Self.drill(writer, database, cluster, faults)
                }
                // Nothing acknowledged lost, nothing credited twice, the books balanced
                try await writer.creditTheRest()
                try await writer.expectEveryAcknowledgedCommit(in: database, of: writer.acknowledged)
                #expect(try await LedgerRepository(database).audit() == [])
            }
        }
    }

    static func drill(
        _ writer: FailoverWriter, _ database: PostgresPipelineDatabase, _ cluster: PostgresCluster,
        _ faults: NetworkFaults
    ) async throws {
        // Given the writer crediting on pg1
        #expect(await eventually(timeout: .seconds(30)) { writer.credited >= 50 })
        #expect(database.primary.current == 0)

        // When pg1 goes silent, and pg2 is promoted as a failover manager would
        let first = ContinuousClock.now
        try await faults.apply(silence("pg1"))
        try await cluster.promote("pg2")
        let failover = try await measure(writer, since: first, what: "primary silent, standby promoted")

        // Then the writer went on on pg2, within the bound
        #expect(failover.resumed < bound, "resumed after \(failover.resumed)")
        #expect(database.primary.current == 1)
        #expect(failover.failures.allSatisfy { SQLError.blame($0) != .work }, "\(failover.failures)")

        // When pg1 is fenced, and pg2, now alone, goes silent for 15 s and heals
        try await cluster.kill("pg1")
        try await faults.heal(silence("pg1"))
        #expect(await eventually(timeout: .seconds(30)) { writer.credited >= failover.credited + 50 })
        let second = ContinuousClock.now
        try await faults.apply(silence("pg2"))
        try await Task.sleep(for: .seconds(15))
        try await faults.heal(silence("pg2"))
        let healed = ContinuousClock.now - second
        let healing = try await measure(writer, since: second, what: "primary silent \(seconds(healed)), then healed")

        // Then it resumed on pg2, soon after the network healed
        #expect(database.primary.current == 1)
        #expect(healing.resumed - healed < .seconds(10), "resumed \(healing.resumed - healed) after healing")
        #expect(healing.failures.allSatisfy { SQLError.blame($0) != .work }, "\(healing.failures)")
    }

    struct Measured {
        var noticed: Duration
        var resumed: Duration
        var failures: [any Error]
        var credited: Int
    }

    /// When the writer noticed (its first failure after `start`) and resumed (its first credit
    /// after that); both within the bound, printed.
    static func measure(_ writer: FailoverWriter, since start: ContinuousClock.Instant, what: String) async throws
        -> Measured
    {
        let seen = await eventually(timeout: .seconds(90), every: .milliseconds(50)) {
            writer.failedAndCredited(after: start).credited != nil
        }
        let (failed, credited) = writer.failedAndCredited(after: start)
        let noticed = (failed ?? .now) - start
        let resumed = (credited ?? .now) - start
        let line = "partition drill: \(what): noticed in \(seconds(noticed)), resumed in \(seconds(resumed))"
        print(line)
        #expect(seen, "\(line): never resumed")
        #expect(failed != nil && noticed < .seconds(20), "\(line): the dead-peer bound is 10 s and a probe")
        // No write hung past the bound, however long the partition lasted
        let longest = writer.longestWrite(after: start)
        #expect(longest < bound, "\(line): a write took \(longest)")
        print("partition drill: \(what): the longest write took \(seconds(longest))")
        return Measured(
            noticed: noticed, resumed: resumed, failures: writer.failures(after: start), credited: writer.credited)
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", duration.seconds)
    }
}
