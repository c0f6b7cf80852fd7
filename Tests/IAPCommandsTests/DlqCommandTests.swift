import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// The `iap dlq` binary against a running pipeline: dead receipts listed, shown, replayed
/// (credited once), discarded (with who and why), and bad input refused without change.
@Suite struct DlqCommandTests {
    func dlq(_ arguments: [String], _ pipeline: PipelineHarness) async throws -> (status: Int32, output: String) {
        try await IAPProcess.run(["dlq"] + arguments, environment: pipeline.processEnvironment)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    @Test(arguments: TestBackend.allCases) func deadReceiptsAreListedShownReplayedOnceAndDiscardedWithWhoAndWhy(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, maxAttempts: 2) { pipeline in
            // Given three receipts that died after two transient failures each
            let a = try await pipeline.submitDoomed(account: "dlq-a", transactionID: "dlq-t1")
            let b = try await pipeline.submitDoomed(account: "dlq-b", transactionID: "dlq-t2")
            let c = try await pipeline.submitDoomed(account: "dlq-c", transactionID: "dlq-t3")
            let reason = try #require(try await ReceiptRepository(pipeline.database).receipt(id: a)?.reason)

            // When an operator lists them: one group of three, in a table and as JSON
            let list = try await dlq(["list"], pipeline)
            #expect(list.status == 0, "\(list.output)")
            #expect(list.output.contains("3 dead letters in 1 group"), "\(list.output)")
            #expect(list.output.contains(reason))
            let listed = try json(try await dlq(["list", "--json"], pipeline).output)
            let groups = try #require(listed["groups"] as? [[String: Any]])
            #expect(groups.count == 1)
            #expect(groups.first?["count"] as? Int == 3)
            #expect(groups.first?["reason"] as? String == reason)
            let letters = try #require(listed["letters"] as? [[String: Any]])
            #expect(Set(letters.compactMap { $0["receipt_id"] as? String }) == [a, b, c])
            let ofB =
                try json(try await dlq(["list", "--json", "--account", "dlq-b"], pipeline).output)["letters"]
                as? [[String: Any]]
            #expect(ofB?.map { $0["receipt_id"] as? String } == [b])

            // And shows one: its receipt, attempts and error, body and headers
            let letterA = try await pipeline.letterID(receipt: a)
            let show = try await dlq(["show", letterA], pipeline)
            #expect(show.status == 0, "\(show.output)")
            print("iap dlq list:\n\(list.output)\niap dlq show:\n\(show.output)")
            for expected in [
                a, "dlq-a", "Headers", "x-iap-dead-reason", "apple_status_21100", "Body (utf8)", "x-death", "expired",
            ] {
                #expect(show.output.contains(expected), "show lacks \(expected): \(show.output)")
            }
            let shown = try json(try await dlq(["show", letterA, "--json"], pipeline).output)
            #expect((shown["letter"] as? [String: Any])?["receipt_id"] as? String == a)
            #expect((shown["receipt"] as? [String: Any])?["status"] as? String == "dead")
            #expect(((shown["letter"] as? [String: Any])?["headers"] as? [String: Any])?["x-iap-attempts"] as? Int == 2)
            // Every attempt and its error, oldest first
            let attempts = try #require(shown["attempt_log"] as? [String])
            #expect(attempts.count == 2)
            #expect(attempts.first?.hasPrefix("attempt 1 at ") == true)
            #expect(attempts.allSatisfy { $0.hasSuffix(": apple_status_21100") })
            #expect(show.output.contains("Every failed attempt") && show.output.contains("attempt 2 at "))

            // When one is replayed: it is credited exactly once, even if replayed twice
            let replay = try await dlq(["replay", letterA, "--by", "tester"], pipeline)
            #expect(replay.status == 0, "\(replay.output)")
            #expect(try await pipeline.finalStatus(a)["status"] as? String == "credited")
            #expect(try await pipeline.balance("dlq-a") == 100)
            let again = try await dlq(["replay", letterA], pipeline)
            #expect(again.status != 0)
            #expect(again.output.contains("already replayed by tester"), "\(again.output)")
            #expect(try await DeadLetterRepository(pipeline.database).deadLetter(id: letterA)?.status == .replayed)

            // When one is discarded: the receipt stays dead and says who and why
            let letterB = try await pipeline.letterID(receipt: b)
            let discard = try await dlq(["discard", letterB, "--reason", "test purchase", "--by", "alice"], pipeline)
            #expect(discard.status == 0, "\(discard.output)")
            let statusB = try await pipeline.status(b)
            #expect(statusB["status"] as? String == "dead")
            #expect(statusB["reason"] as? String == "discarded by alice: test purchase")

            // And bad input is refused with a message naming the problem, changing nothing
            let letterC = try await pipeline.letterID(receipt: c)
            let refusals: [([String], String)] = [
                (["replay", "dl_nope"], "no dead letter with id dl_nope"),
                (["discard", "dl_nope", "--reason", "x"], "no dead letter with id dl_nope"),
                (["discard", letterC], "--reason"),
                (["discard", letterC, "--reason", "   "], "--reason"),
                (["list", "--older-than", "3x"], "--older-than"),
                (["replay", "--newer-than", "soon", "--all"], "--newer-than"),
                (["replay"], "say what to replay"),
                (["replay", letterC, "--all"], "not both"),
                (["show", "dl_nope"], "no dead letter with id dl_nope"),
            ]
            for (arguments, message) in refusals {
                let refused = try await dlq(arguments, pipeline)
                #expect(refused.status != 0, "\(arguments) succeeded: \(refused.output)")
                #expect(refused.output.contains(message), "\(arguments): \(refused.output)")
            }
            #expect(try await DeadLetterRepository(pipeline.database).deadLetter(id: letterC)?.status == .waiting)
            #expect(try await ReceiptRepository(pipeline.database).receipt(id: c)?.reason == reason)

            // When the rest of the group is replayed in bulk: a progress line and a summary
            let bulk = try await dlq(["replay", "--reason", reason, "--by", "tester"], pipeline)
            #expect(bulk.status == 0, "\(bulk.output)")
            print("iap dlq replay --reason:\n\(bulk.output)")
            #expect(bulk.output.contains("progress: 1/1"), "\(bulk.output)")
            #expect(bulk.output.contains("replayed 1, failed 0, skipped 0"), "\(bulk.output)")
            #expect(try await pipeline.finalStatus(c)["status"] as? String == "credited")

            // Then each replayed receipt was credited, and announced, once
            _ = try await pipeline.receiver.waitFor(count: 5, timeout: .seconds(30)) { $0.wasAccepted }
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await pipeline.balance("dlq-a") == 100)
            #expect(try await pipeline.balance("dlq-c") == 100)
            #expect(try await pipeline.balance("dlq-b") == 0)
            #expect(pipeline.creditedWebhooks(a) == 1)
            #expect(pipeline.creditedWebhooks(c) == 1)
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)
            let empty = try await dlq(["list"], pipeline)
            #expect(empty.output.contains("No dead letters waiting for review."), "\(empty.output)")
        }
    }

    @Test(arguments: TestBackend.allCases) func bulkReplayOfManyDeadReceiptsCreditsEachOnce(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, maxAttempts: 2) { pipeline in
            // Given 300 receipts that died after two transient failures each
            let count = 300
            let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let data = pipeline.stub.issue(
                            StubReceipt(
                                bundleID: PipelineHarness.bundleID, environment: .production,
                                transactions: [
                                    StubReceipt.Transaction(
                                        transactionID: "bulk-\(index)", productID: "com.example.coins100")
                                ],
                                failFirst: 2))
                        return try await pipeline.submit(account: "bulk-\(index % 10)", receiptData: data).1
                    }
                }
                return try await group.reduce(into: [String]()) { if let id = $1 { $0.append(id) } }
            }
            #expect(ids.count == count)
            let allDead = await eventually(timeout: .seconds(60), every: .milliseconds(200)) {
                (try? await ReceiptRepository(pipeline.database).receiptStatusCounts()[.dead]) == count
            }
            #expect(allDead)

            // When all are replayed at once
            let start = ContinuousClock.now
            let replay = try await dlq(["replay", "--all", "--json", "--by", "bulk"], pipeline)
            let took = ContinuousClock.now - start
            print("iap dlq replay --all: \(count) letters in \(took) (the iap process included)")
            #expect(replay.status == 0, "\(replay.output)")
            #expect(replay.output.contains("\"replayed\" : \(count)"), "\(replay.output)")

            // Then every receipt is credited once, and nothing waits for review
            let allCredited = await eventually(timeout: .seconds(60), every: .milliseconds(200)) {
                (try? await ReceiptRepository(pipeline.database).receiptStatusCounts()[.credited]) == count
            }
            #expect(allCredited)
            var total = 0
            for index in 0..<10 { total += try await pipeline.balance("bulk-\(index)") }
            #expect(total == count * 100)
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)
            #expect(try await DeadLetterRepository(pipeline.database).deadLetters(DeadLetterQuery()).isEmpty)
        }
    }
}
