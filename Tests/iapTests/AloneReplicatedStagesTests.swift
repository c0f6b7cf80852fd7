import Foundation
import Notifier
import PipelineTesting
import Store
import StubStore
import Synchronization
import Testing

/// Every stateful stage replicated on one PostgreSQL database, as `iap` processes: two
/// intakes, two fulfillers, two notifiers and a validator. Fulfillers and notifiers are
/// SIGKILLed and restarted while receipts arrive; nothing may be lost or credited twice.
/// Seven processes keep both cores busy: `scripts/test.sh` runs it in the pass of tests that
/// need the machine alone (`IAP_TEST_ALONE=1`).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct AloneReplicatedStagesTests {
    @Test func twoOfEachStageOnPostgreSQLSurviveSIGKILLsAndCreditEachReceiptOnce() async throws {
        try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            let secret = WebhookSecret.generate()
            try await withWebhookReceiver(secret: secret.encoded) { receiver in
                let environment = [
                    "IAP_DATABASE_URL": PostgresFixture.url(of: database.location.database),
                    "IAP_WEBHOOK_URL": receiver.url, "IAP_WEBHOOK_SECRET": secret.encoded,
                    "IAP_LOG_LEVEL": "warning",
                ]
                let stub = StubStoreConfiguration(bundleID: PipelineHarness.bundleID)
                try await ProcessPipeline.run(stub: stub, environment: environment) { pipeline in
                    try await Self.run(pipeline, database: database, receiver: receiver)
                }
            }
        }
    }

    static func run(
        _ pipeline: ProcessPipeline, database: PostgresPipelineDatabase, receiver: WebhookReceiver
    ) async throws {
        // Given two intakes, a validator, two fulfillers and two notifiers
        let secondPort = ProcessPipeline.freePort()
        _ = try pipeline.start(["intake"])
        _ = try pipeline.start(["intake"], environment: ["IAP_HTTP_PORT": "\(secondPort)"])
        _ = try pipeline.start(["validator", "--concurrency", "64"])
        var fulfillers = [try pipeline.start(["fulfiller"]), try pipeline.start(["fulfiller"])]
        var notifiers = [try pipeline.start(["notifier"]), try pipeline.start(["notifier"])]
        let ports = [pipeline.intakePort, secondPort]
        for port in ports { #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(port)/healthz")) }

        // When 600 receipts of 30 accounts arrive through both intakes, while a fulfiller and
        // a notifier are killed and restarted, three times each
        let count = 600
        let accounts = 30
        let receipts = (0..<count).map { pipeline.receipt(transaction: "replica-\($0)") }
        let submitting = Task { try await submit(receipts, accounts: accounts, ports: ports, pipeline: pipeline) }
        func credited() async -> Int { (try? await database.receiptStatusCounts()[.credited, default: 0]) ?? 0 }
        for round in 1...3 {
            #expect(
                await eventually(timeout: .seconds(120), every: .milliseconds(100)) {
                    await credited() >= round * count / 5
                })
            fulfillers[round % 2].crash()
            notifiers[round % 2].crash()
            fulfillers[round % 2] = try pipeline.start(["fulfiller"])
            notifiers[round % 2] = try pipeline.start(["notifier"])
        }
        let accepted = try await submitting.value
        #expect(accepted.count == count)

        // Then each receipt is credited once, the books balance, and each webhook arrived
        #expect(await eventually(timeout: .seconds(180), every: .milliseconds(500)) { await credited() == count })
        var coins = 0
        for index in 0..<accounts {
            let account = try #require(try await database.account(id: "player-\(index)", ledgerLimit: 1_000))
            #expect(account.ledger.count == count / accounts)
            coins += account.balances["coins"] ?? 0
        }
        #expect(coins == count * 100)
        #expect(try await database.audit() == [])
        #expect(
            await eventually(timeout: .seconds(120), every: .milliseconds(500)) {
                (try? await database.snapshot {
                    try $0.value("SELECT COUNT(*) FROM notification_outbox WHERE status <> 'delivered'", as: Int.self)
                }) == 0
            })
        let delivered = Set(receiver.received.filter(\.wasAccepted).compactMap(\.id))
        let written = try await database.snapshot { session in
            Set(try session.rows("SELECT id FROM notification_outbox").map { try $0.get("id", as: String.self) })
        }
        #expect(written.count == count)
        #expect(written.isSubset(of: delivered))
        let audit = try await IAPProcess.run(["audit"], environment: pipeline.environment)
        #expect(audit.status == 0, "iap audit: \(audit.output)")
    }

    /// Posts every receipt, alternating between the intakes, 8 at a time.
    static func submit(
        _ receipts: [String], accounts: Int, ports: [Int], pipeline: ProcessPipeline
    ) async throws -> [String] {
        let next = Counter()
        return try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var ids: [String] = []
                    while true {
                        let index = next.value.add(1, ordering: .relaxed).oldValue
                        guard index < receipts.count else { return ids }
                        let (status, id) = try await pipeline.submit(
                            account: "player-\(index % accounts)", receiptData: receipts[index],
                            port: ports[index % ports.count])
                        if status == 202, let id { ids.append(id) }
                    }
                }
            }
            var all: [String] = []
            for try await ids in group { all += ids }
            return all
        }
    }
}

/// The next receipt to post, shared by the clients.
private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
