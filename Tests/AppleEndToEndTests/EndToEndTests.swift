import Broker
import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Receipts travel the whole way: backend POST → broker → stub store → credited account →
/// signed webhook.
@Suite struct EndToEndTests {
    @Test(arguments: TestBackend.allCases) func thousandReceiptsOverManyAccountsAreEachCreditedAndNotifiedOnce(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given 1,000 receipts over 100 accounts, of two products
            let count = 1_000
            var expected: [String: Int] = [:]
            var receipts: [(account: String, data: String)] = []
            for index in 0..<count {
                let account = "player-\(index % 100)"
                let product = index % 3 == 0 ? "com.example.coins500" : "com.example.coins100"
                expected[account, default: 0] += index % 3 == 0 ? 500 : 100
                receipts.append((account, pipeline.receipt(transactions: [("tx-\(index)", product)])))
            }

            // When the backend posts them, 50 at a time
            var ids: [String] = []
            for chunk in stride(from: 0, to: count, by: 50) {
                let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                    for receipt in receipts[chunk..<min(chunk + 50, count)] {
                        group.addTask { try await pipeline.submit(account: receipt.account, receiptData: receipt.data) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(answers.allSatisfy { $0.0 == 202 })
                ids += answers.compactMap(\.1)
            }
            #expect(Set(ids).count == count)

            // Then every one is credited, every balance is right, and every webhook arrived once
            let allCredited = await eventually(timeout: .seconds(90), every: .milliseconds(250)) {
                let credited = (try? await ReceiptRepository(pipeline.database).receiptStatusCounts()[.credited]) ?? 0
                return credited == count
            }
            #expect(allCredited)
            for (account, coins) in expected { #expect(try await pipeline.balance(account) == coins) }
            _ = try await pipeline.receiver.waitFor(count: count, timeout: .seconds(60)) { $0.wasAccepted }
            let accepted = pipeline.receiver.accepted
            let eventIDs = accepted.compactMap(\.id)
            #expect(Set(eventIDs).count == count, "one webhook per receipt")
            #expect(eventIDs.count == count, "none delivered twice")
            #expect(accepted.allSatisfy { $0.signature == .valid })
            let creditedReceipts = Set(
                accepted.compactMap { delivery -> String? in
                    let json = try? JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any]
                    return json?["type"] as? String == "receipt.credited" ? json?["receipt_id"] as? String : nil
                })
            #expect(creditedReceipts == Set(ids))
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func sandboxReceiptIsCreditedThroughThe21007Fallback(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend) { pipeline in
            let data = pipeline.receipt(transactions: [("sbx-1", "com.example.coins100")], environment: .sandbox)
            let (status, id) = try await pipeline.submit(account: "tester", receiptData: data)
            #expect(status == 202)
            let final = try await pipeline.finalStatus(try #require(id))
            #expect(final["status"] as? String == "credited")
            #expect(final["environment"] as? String == "Sandbox")
            #expect(try await pipeline.balance("tester") == 100)
            #expect(pipeline.stub.stats.production.count(status: 21007) == 1)
        }
    }

    @Test(arguments: TestBackend.allCases) func receiptFailingTransientlyForAWhileIsRetriedAndCredited(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Counted, not timed: on a loaded machine the first attempt can come after any window.
            let data = pipeline.receipt(transactions: [("flaky-1", "com.example.coins100")], failFirst: 2)
            let (_, id) = try await pipeline.submit(account: "patient", receiptData: data)
            let final = try await pipeline.finalStatus(try #require(id))
            #expect(final["status"] as? String == "credited")
            #expect((final["attempts"] as? Int ?? 0) == 3)
            #expect(try await pipeline.balance("patient") == 100)
        }
    }

    @Test(arguments: TestBackend.allCases) func forgedReceiptIsRejectedWithAReasonInItsStatusAndAWebhook(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // A receipt signed with another key: what a jailbreak tool would produce
            let forged = StubReceipt(
                bundleID: PipelineHarness.bundleID,
                transactions: [StubReceipt.Transaction(transactionID: "free-coins", productID: "com.example.coins500")]
            ).encoded(signingKey: "not-the-stores-key")
            let (status, id) = try await pipeline.submit(account: "cheater", receiptData: forged)
            #expect(status == 202)
            let receiptID = try #require(id)
            let final = try await pipeline.finalStatus(receiptID)
            #expect(final["status"] as? String == "rejected")
            #expect(final["reason"] as? String == "apple_status_21003")
            #expect(try await pipeline.balance("cheater") == 0)
            _ = try await pipeline.receiver.waitFor(count: 1, timeout: .seconds(30)) { $0.wasAccepted }
            let webhook = try #require(pipeline.webhooks(for: receiptID).first)
            #expect(webhook["type"] as? String == "receipt.rejected")
            #expect((webhook["data"] as? [String: Any])?["reason"] as? String == "apple_status_21003")
        }
    }

    @Test(arguments: TestBackend.allCases) func poisonMessageEndsInTheDeadLetterQueueWithItsReason(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a committed receipt whose message on the queue is garbage
            let (_, id) = try await pipeline.submit(
                account: "victim", receiptData: pipeline.receipt(transactions: [("poison-ok", "com.example.coins100")]))
            let receiptID = try #require(id)
            _ = try await pipeline.finalStatus(receiptID)
            let connection = try await pipeline.broker.connect()
            try await connection.publish(
                OutgoingMessage(
                    exchange: pipeline.topology.workExchange, routingKey: PipelineTopology.validateKey,
                    body: Array("{\"not\": \"a submission\"".utf8), properties: MessageProperties(messageID: "poison-1")
                ))

            // Then it is archived for the operators with the reason, and the dead-letter queue is drained
            var letter: DeadLetter?
            let archived = await eventually(timeout: .seconds(20)) {
                letter = try? await DeadLetterRepository(pipeline.database).deadLetters(receiptID: "poison-1").first
                return letter != nil
            }
            #expect(archived)
            #expect(letter?.reason == "unparseable_message")
            #expect(letter?.body == Data("{\"not\": \"a submission\"".utf8))
            #expect(letter?.status == .waiting)
            let drained = await eventually {
                (try? await connection.queueStatus(pipeline.topology.deadQueue).messages) == 0
            }
            #expect(drained)
            await connection.close()
            // And the good receipt is untouched
            #expect(try await pipeline.balance("victim") == 100)
        }
    }

    @Test(arguments: TestBackend.allCases) func hopelessReceiptIsDeadWithItsReasonAndAWebhook(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(
            backend, stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID), maxAttempts: 2
        ) {
            pipeline in
            let data = pipeline.receipt(
                transactions: [("never", "com.example.coins100")], transientUntil: Date().addingTimeInterval(3600))
            let (_, id) = try await pipeline.submit(account: "unlucky", receiptData: data)
            let receiptID = try #require(id)
            let final = try await pipeline.finalStatus(receiptID)
            #expect(final["status"] as? String == "dead")
            #expect((final["reason"] as? String)?.hasPrefix("attempts_exhausted") == true)
            _ = try await pipeline.receiver.waitFor(count: 1, timeout: .seconds(30)) { $0.wasAccepted }
            #expect(pipeline.webhooks(for: receiptID).first?["type"] as? String == "receipt.dead")
        }
    }

    @Test(arguments: TestBackend.allCases) func sameReceiptTwiceIsOneReceiptAndTheSameTransactionCreditsOnce(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // The same receipt posted twice by one account
            let data = pipeline.receipt(transactions: [("once-1", "com.example.coins100")])
            let (first, firstID) = try await pipeline.submit(account: "alice", receiptData: data)
            let (second, secondID) = try await pipeline.submit(account: "alice", receiptData: data)
            #expect(first == 202)
            #expect(second == 200)
            #expect(firstID == secondID)
            _ = try await pipeline.finalStatus(try #require(firstID))

            // The same Apple transaction inside another account's receipt (a shared or replayed receipt)
            let replay = pipeline.receipt(
                transactions: [("once-1", "com.example.coins100")], bundleID: PipelineHarness.bundleID)
            let (_, replayID) = try await pipeline.submit(account: "mallory", receiptData: replay)
            let final = try await pipeline.finalStatus(try #require(replayID))

            #expect(try await pipeline.balance("alice") == 100)
            #expect(try await pipeline.balance("mallory") == 0)
            #expect(final["status"] as? String == "rejected")
            #expect(final["reason"] as? String == "already_credited")
        }
    }
}
