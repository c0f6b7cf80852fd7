import Database
import DatabasePostgres
import Foundation
import Logging
import Notifier
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Synchronization
import Testing

@testable import EndToEndSupport

/// The stages as `iap` processes on a real primary and synchronous standby
/// (`scripts/cluster-postgres.sh`), given both servers in `IAP_DATABASE_URL`: the primary is
/// stopped hard while receipts arrive and the standby promoted; the same processes carry on
/// against it, and every receipt is credited once. It builds servers and namespaces and runs
/// four stages, so it runs in the pass of tests that have the machine alone.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"),
    .enabled(if: PostgresCluster.isAvailable, "needs root, iproute2 and PostgreSQL 15's server programs"))
struct AlonePostgresStagesFailoverTests {
    static let count = 600

    @Test func theStagesFollowThePromotedStandbyAndCreditEachReceiptOnce() async throws {
        try await PostgresCluster.with { cluster in
            var logger = Logger(label: "failover")
            logger.logLevel = .error
            let database = PostgresPipelineDatabase(location: PostgresCluster.location, logger: logger)
            do {
                try await database.migrate()
                try await Self.run(cluster, database)
                await database.close()
            } catch {
                await database.close()
                throw error
            }
        }
    }

    static func run(_ cluster: PostgresCluster, _ database: PostgresPipelineDatabase) async throws {
        let secret = WebhookSecret.generate()
        try await withWebhookReceiver(secret: secret.encoded) { receiver in
            let environment = [
                "IAP_DATABASE_URL": PostgresCluster.url, "IAP_WEBHOOK_URL": receiver.url,
                "IAP_WEBHOOK_SECRET": secret.encoded, "IAP_LOG_LEVEL": "warning",
            ]
            let stub = StubStoreConfiguration(bundleID: PipelineHarness.bundleID)
            try await ProcessPipeline.run(stub: stub, environment: environment) { pipeline in
                // Given an intake, a validator, a fulfiller and a notifier writing to pg1
                let stages = try ["intake", "validator", "fulfiller", "notifier"].map { try pipeline.start([$0]) }
                #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))

                // When receipts arrive, and a third of the way pg1 is stopped hard and pg2 promoted
                let receipts = (0..<count).map { pipeline.receipt(transaction: "failover-\($0)") }
                let posting = Task { try await submit(receipts, pipeline) }
                func credited() async -> Int {
                    (try? await ReceiptRepository(database).receiptStatusCounts())?[.credited, default: 0] ?? 0
                }
                #expect(
                    await eventually(timeout: .seconds(120), every: .milliseconds(100)) {
                        await credited() >= count / 3
                    })
                try await cluster.kill("pg1")
                try await Task.sleep(for: .seconds(1))
                try await cluster.promote("pg2")
                let ids = try await posting.value

                // Then every receipt was taken (a post that failed during the failover was
                // posted again), each once, and each is credited once, on pg2
                #expect(ids.count == count)
                #expect(Set(ids).count == count)
                #expect(
                    await eventually(timeout: .seconds(180), every: .milliseconds(500)) { await credited() == count })
                let purchases = try await database.snapshot { session in
                    try await session.rows(
                        """
                        SELECT COUNT(*) AS entries, COUNT(DISTINCT transaction_id) AS transactions
                        FROM ledger_entries WHERE kind = 'purchase'
                        """
                    ).first.map { [try $0.get("entries", as: Int.self), try $0.get("transactions", as: Int.self)] }
                }
                #expect(purchases == [count, count])
                #expect(try await LedgerRepository(database).audit() == [])
                // And each webhook was delivered
                #expect(
                    await eventually(timeout: .seconds(120), every: .milliseconds(500)) {
                        (try? await database.snapshot {
                            try await $0.value(
                                "SELECT COUNT(*) FROM notification_outbox WHERE status <> 'delivered'", as: Int.self)
                        }) == 0
                    })
                // And no stage stopped: each followed the primary by itself, and said so
                #expect(pipeline.logs().contains("may no longer be the primary; looking for it"))
                let running = stages.map(\.process.isRunning)
                #expect(running == [true, true, true, true], "\(pipeline.logs().suffix(4000))")
                let audit = try await IAPProcess.run(["audit"], environment: pipeline.environment)
                #expect(audit.status == 0, "iap audit: \(audit.output)")
            }
        }
    }

    /// Posts every receipt, 8 at a time, each until the intake takes it: a 503 or a broken
    /// request during the failover is posted again, as a client would (a repeat of a receipt
    /// stored before its answer was lost gets the same id back). Returns the ids.
    static func submit(_ receipts: [String], _ pipeline: ProcessPipeline) async throws -> [String] {
        let next = NextReceipt()
        return try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var ids: [String] = []
                    while true {
                        let index = next.value.add(1, ordering: .relaxed).oldValue
                        guard index < receipts.count else { return ids }
                        ids.append(try await post(receipts[index], index: index, pipeline))
                    }
                }
            }
            var all: [String] = []
            for try await ids in group { all += ids }
            return all
        }
    }

    static func post(_ receipt: String, index: Int, _ pipeline: ProcessPipeline) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            let answer = try? await pipeline.submit(account: "player-\(index % 20)", receiptData: receipt)
            if let answer, [200, 202].contains(answer.0), let id = answer.1 { return id }
            guard ContinuousClock.now < deadline else {
                throw ClusterTestError(description: "receipt \(index) not taken: \(String(describing: answer))")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

struct ClusterTestError: Error, CustomStringConvertible {
    let description: String
}

/// The next receipt to post, shared by the clients.
private final class NextReceipt: Sendable {
    let value = Atomic<Int>(0)
}
