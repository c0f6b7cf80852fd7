import Database
import DatabasePostgres
import DatabaseSQLite
import Foundation
import Notifier
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Synchronization
import Testing

@testable import EndToEndSupport

/// Every stateful stage replicated on one PostgreSQL database, as `iap` processes: two
/// intakes, two fulfillers, two notifiers and a validator. 5,000 receipts arrive through
/// both intakes, with duplicates, Idempotency-Key retries and replayed transactions sent to
/// the other intake than the first, while fulfillers and notifiers are SIGKILLed and
/// restarted; nothing may be lost or credited twice.
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

    static let count = 5_000
    static let accounts = 50

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

        // When 5,000 receipts of 50 accounts arrive through both intakes, each tenth posted
        // again to the other intake, each tenth retried there with its Idempotency-Key, and
        // each twenty-fifth transaction replayed there by another account in a new receipt,
        // while a fulfiller and a notifier are killed and restarted, three times each
        let plan = (0..<count).map { Planned(index: $0, pipeline: pipeline) }
        let submitting = Task { try await submit(plan, ports: ports, pipeline: pipeline) }
        func final() async -> Int {
            let counts = try? await ReceiptRepository(database).receiptStatusCounts()
            return (counts?[.credited, default: 0] ?? 0) + (counts?[.rejected, default: 0] ?? 0)
        }
        for round in 1...3 {
            #expect(
                await eventually(timeout: .seconds(300), every: .milliseconds(200)) {
                    await final() >= round * count / 5
                })
            fulfillers[round % 2].crash()
            notifiers[round % 2].crash()
            fulfillers[round % 2] = try pipeline.start(["fulfiller"])
            notifiers[round % 2] = try pipeline.start(["notifier"])
        }
        let answers = try await submitting.value

        // Then every post was answered, a repeat (by content or by key) with the first's id
        #expect(answers.problems == [])
        let replays = plan.filter { $0.replay != nil }.count
        #expect(answers.accepted == count + replays)

        // And every receipt is final: each transaction credited once (to its buyer or, when a
        // replay was checked first, to the replaying account), the other receipt rejected
        #expect(
            await eventually(timeout: .seconds(300), every: .milliseconds(500)) { await final() == count + replays })
        let counts = try await ReceiptRepository(database).receiptStatusCounts()
        #expect(counts[.credited, default: 0] == count && counts[.rejected, default: 0] == replays, "\(counts)")
        let purchases = try await database.snapshot { session in
            try await session.rows(
                """
                SELECT COUNT(*) AS entries, COUNT(DISTINCT transaction_id) AS transactions, SUM(amount) AS coins
                FROM ledger_entries WHERE kind = 'purchase' AND currency = 'coins'
                """
            ).first.map { row in
                [
                    try row.get("entries", as: Int.self), try row.get("transactions", as: Int.self),
                    try row.get("coins", as: Int.self),
                ]
            }
        }
        #expect(purchases == [count, count, count * 100])
        #expect(try await LedgerRepository(database).audit() == [])

        // And each webhook id the outbox holds was delivered at least once
        #expect(
            await eventually(timeout: .seconds(180), every: .milliseconds(500)) {
                (try? await database.snapshot {
                    try await $0.value(
                        "SELECT COUNT(*) FROM notification_outbox WHERE status <> 'delivered'", as: Int.self)
                }) == 0
            })
        let delivered = Set(receiver.received.filter(\.wasAccepted).compactMap(\.id))
        let written = try await database.snapshot { session in
            await Set(try session.rows("SELECT id FROM notification_outbox").map { try $0.get("id", as: String.self) })
        }
        #expect(written.count == count + replays)
        #expect(written.isSubset(of: delivered))
        let audit = try await IAPProcess.run(["audit"], environment: pipeline.environment)
        #expect(audit.status == 0, "iap audit: \(audit.output)")
    }

    /// One receipt of the run and what follows it, to the other intake.
    struct Planned: Sendable {
        enum Repeat: Sendable { case none, sameBody, sameKey }

        let index: Int
        let account: String
        let receipt: String
        let repeats: Repeat
        /// A new receipt, of another account, listing this receipt's transaction again.
        let replay: (account: String, receipt: String)?

        init(index: Int, pipeline: ProcessPipeline) {
            self.index = index
            account = "player-\(index % AloneReplicatedStagesTests.accounts)"
            receipt = pipeline.receipt(transaction: "replica-\(index)")
            repeats = index % 10 == 0 ? .sameBody : index % 10 == 5 ? .sameKey : .none
            replay =
                index % 25 == 7
                ? ("replayer-\(index % 7)", pipeline.receipt(transaction: "replica-\(index)")) : nil
        }
    }

    /// What the intakes answered: how many receipts they created, and what was wrong.
    struct Answers: Sendable {
        var accepted = 0
        var problems: [String] = []

        mutating func add(_ other: Answers) {
            accepted += other.accepted
            problems += other.problems
        }
    }

    /// Posts the plan, alternating between the intakes, 8 receipts at a time; each repeat
    /// and replay goes to the other intake once the first answered.
    static func submit(_ plan: [Planned], ports: [Int], pipeline: ProcessPipeline) async throws -> Answers {
        let next = Counter()
        return try await withThrowingTaskGroup(of: Answers.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var answers = Answers()
                    while true {
                        let index = next.value.add(1, ordering: .relaxed).oldValue
                        guard index < plan.count else { return answers }
                        answers.add(
                            try await post(
                                plan[index], first: ports[index % 2], other: ports[(index + 1) % 2], pipeline))
                    }
                }
            }
            var all = Answers()
            for try await answers in group { all.add(answers) }
            return all
        }
    }

    static func post(_ planned: Planned, first: Int, other: Int, _ pipeline: ProcessPipeline) async throws -> Answers {
        var answers = Answers()
        let key = planned.repeats == .sameKey ? "order-\(planned.index)" : nil
        let (status, id) = try await pipeline.submit(
            account: planned.account, receiptData: planned.receipt, port: first, idempotencyKey: key)
        guard status == 202, let id else {
            answers.problems.append("receipt \(planned.index): \(status)")
            return answers
        }
        answers.accepted += 1
        if planned.repeats != .none {
            let (again, againID) = try await pipeline.submit(
                account: planned.account, receiptData: planned.receipt, port: other, idempotencyKey: key)
            if again != 200 || againID != id {
                answers.problems.append("repeat of \(planned.index): \(again) \(againID ?? "-") for \(id)")
            }
        }
        if let replay = planned.replay {
            let (status, replayID) = try await pipeline.submit(
                account: replay.account, receiptData: replay.receipt, port: other)
            if status == 202, replayID != nil {
                answers.accepted += 1
            } else {
                answers.problems.append("replay of \(planned.index): \(status)")
            }
        }
        return answers
    }
}

/// The next receipt to post, shared by the clients.
private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
