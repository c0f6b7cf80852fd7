import Database
import DatabasePostgres
import Drills
import Foundation
import Logging
import Notifier
import PipelineTesting
import Repositories
import StubStore
import Testing

@testable import EndToEndSupport

/// The same stages, the primary going silent instead of stopping: on its side every packet of
/// every session is dropped (iptables, in and out on 5432) and the server keeps running, and
/// the standby is promoted at once. The stages notice by their dead-peer bound (their logs say
/// so), carry on on pg2, and credit each receipt once. The times are printed.
extension AlonePostgresStagesFailoverTests {
    @Test func theStagesNoticeASilentPrimaryAndResumeOnThePromotedStandby() async throws {
        let faults = NetworkFaults()
        defer { faults.healAllBlocking() }
        try await PostgresCluster.with { cluster in
            var logger = Logger(label: "partition")
            logger.logLevel = .critical
            let database = PostgresPipelineDatabase(location: PostgresCluster.location, logger: logger)
            let onPG2 = PostgresPipelineDatabase(location: PostgresCluster.only("pg2"), logger: logger)
            do {
                try await database.migrate()
                try await Self.silence(cluster, faults, onPG2)
                await database.close()
                await onPG2.close()
            } catch {
                await database.close()
                await onPG2.close()
                throw error
            }
        }
    }

    static func silence(_ cluster: PostgresCluster, _ faults: NetworkFaults, _ onPG2: PostgresPipelineDatabase)
        async throws
    {
        let count = 300
        let secret = WebhookSecret.generate()
        try await withWebhookReceiver(secret: secret.encoded) { receiver in
            let environment = [
                "IAP_DATABASE_URL": PostgresCluster.url, "IAP_WEBHOOK_URL": receiver.url,
                "IAP_WEBHOOK_SECRET": secret.encoded, "IAP_LOG_LEVEL": "warning",
            ]
            let stub = StubStoreConfiguration(bundleID: PipelineHarness.bundleID)
            try await ProcessPipeline.run(stub: stub, environment: environment) { pipeline in
                // Given the four stages writing to pg1 while receipts arrive
                let stages = try ["intake", "validator", "fulfiller", "notifier"].map { try pipeline.start([$0]) }
                #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))
                let receipts = (0..<count).map { pipeline.receipt(transaction: "silence-\($0)") }
                let posting = Task { try await submit(receipts, pipeline) }
                // pg2, the synchronous standby, holds every commit pg1 acknowledged: read there
                func credited() async -> Int {
                    (try? await ReceiptRepository(onPG2).receiptStatusCounts())?[.credited, default: 0] ?? 0
                }
                #expect(await eventually(timeout: .seconds(120), every: .milliseconds(100)) { await credited() >= 60 })

                // When pg1 goes silent and pg2 is promoted at once
                let suspected = "may no longer be the primary; looking for it"
                let before = pipeline.logs().components(separatedBy: suspected).count
                let start = ContinuousClock.now
                try await faults.apply(
                    .silence(NetworkNamespace(name: "pg1", address: PostgresCluster.address("pg1")), port: 5432))
                try await cluster.promote("pg2")
                let atSilence = await credited()

                // Then a stage says it noticed, and crediting resumes on pg2 (after the silence
                // pg1 replicates nothing, so what pg2 gains is pg2's own)
                var noticed: Duration?
                var resumed: Duration?
                _ = await eventually(timeout: .seconds(90), every: .milliseconds(100)) {
                    if noticed == nil, pipeline.logs().components(separatedBy: suspected).count > before {
                        noticed = ContinuousClock.now - start
                    }
                    if resumed == nil, await credited() > atSilence { resumed = ContinuousClock.now - start }
                    return noticed != nil && resumed != nil
                }
                let line =
                    "partition drill: primary silent, stages as processes: noticed in \(Self.seconds(noticed)), "
                    + "resumed in \(Self.seconds(resumed))"
                print(line)
                #expect(noticed.map { $0 < .seconds(20) } == true, "\(line)")
                #expect(resumed.map { $0 < .seconds(30) } == true, "\(line)")

                // And every receipt is taken once and credited once, on pg2
                let ids = try await posting.value
                #expect(Set(ids).count == count)
                #expect(
                    await eventually(timeout: .seconds(120), every: .milliseconds(500)) { await credited() == count })
                let purchases = try await onPG2.snapshot { session in
                    try await session.rows(
                        """
                        SELECT COUNT(*) AS entries, COUNT(DISTINCT transaction_id) AS transactions
                        FROM ledger_entries WHERE kind = 'purchase'
                        """
                    ).first.map { [try $0.get("entries", as: Int.self), try $0.get("transactions", as: Int.self)] }
                }
                #expect(purchases == [count, count])
                #expect(try await LedgerRepository(onPG2).audit() == [])
                let running = stages.map(\.process.isRunning)
                #expect(running == [true, true, true, true], "\(pipeline.logs().suffix(4000))")
            }
        }
    }

    static func seconds(_ duration: Duration?) -> String {
        duration.map { String(format: "%.1f s", $0.seconds) } ?? "never"
    }
}
