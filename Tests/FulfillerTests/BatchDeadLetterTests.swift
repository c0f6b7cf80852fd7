import Broker
import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Fulfiller

extension FulfillerTests {
    @Test func aMessageOfSeveralReceiptsThatDiesWhole_isArchivedAsALetterForEach() async throws {
        try await withFulfiller(receipts: 3) { connection, topology, database, ids in
            // Given the relay's message carrying three receipts, which the broker dead-letters
            // whole (here a reject without requeue; the delivery limit does the same)
            let submissions = ids.map {
                Submission(id: $0, accountID: "player", evidence: .receipt("YQ=="), submittedAt: Date())
            }
            let (confirmed, _) = await connection.publishSubmissions(
                submissions, topology: topology, type: "submission")
            #expect(confirmed == ids)
            for try await delivery in connection.consume(queue: topology.validateQueue, prefetch: 1) {
                #expect(delivery.partCount == 3)
                delivery.nack(requeue: false)
                break
            }

            // Then each receipt is marked dead on its own, its letter holding its body alone
            let dead = await eventually {
                var statuses: [ReceiptStatus?] = []
                for id in ids { statuses.append(try? await ReceiptRepository(database).receipt(id: id)?.status) }
                return statuses.allSatisfy { $0 == .dead }
            }
            #expect(dead)
            for id in ids {
                let letters = try await DeadLetterRepository(database).deadLetters(receiptID: id)
                #expect(letters.count == 1)
                let letter = try #require(letters.first)
                #expect(letter.reason == "rejected in \(topology.validateQueue)")
                #expect(letter.sourceQueue == topology.validateQueue)
                let body = try WireCoding.decoder().decode(Submission.self, from: letter.body)
                #expect(body.id == id && body.evidence == .receipt("YQ=="))
            }
            let drained = await eventually { (try? await connection.queueStatus(topology.deadQueue).messages) == 0 }
            #expect(drained)
        }
    }
}

extension FulfillerTests {
    @Test func aPackOfVerdicts_isAppliedPartByPart_andEachBadPartDeadLetteredByItself() async throws {
        try await withFulfiller(receipts: 3) { connection, topology, database, ids in
            let receipts = ReceiptRepository(database)
            // Given one message with a good verdict, one the engine refuses, one nobody can
            // read, and a second good one
            func valid(_ id: String, _ transaction: String, product: String) throws -> OutgoingMessage {
                var message = try verdictMessage(
                    Verdict(
                        outcome: .valid, receiptID: id, accountID: "player", attempts: 1,
                        transactions: [
                            VerifiedTransaction(
                                transactionID: transaction, originalTransactionID: transaction, productID: product)
                        ],
                        decidedAt: Date()),
                    topology)
                message.properties.headers[MessageHeader.submittedAt] = .int(Int64(Date().timeIntervalSince1970 * 1000))
                return message
            }
            var garbage = try valid("not-a-receipt", "t-x", product: "com.example.coins100")
            garbage.body = Array("garbage".utf8)
            let pack = MessagePack.pack([
                try valid(ids[0], "t-good", product: "com.example.coins100"),
                try valid(ids[1], "t-bad", product: ""),
                garbage,
                try valid(ids[2], "t-good-2", product: "com.example.coins100"),
            ])
            #expect(pack.map(\.ids.count) == [4])
            #expect(await connection.publish(pack.map(\.message)).allSatisfy { (try? $0.get()) != nil })

            // Then the good ones are credited, the refused one is dead with its reason, and the
            // unreadable part is archived alone, its body as it was
            let settled = await eventually(timeout: .seconds(20)) {
                let dead = (try? await receipts.receipt(id: ids[1])?.status) == .dead
                let archived = (try? await DeadLetterRepository(database).deadLetters(receiptID: "not-a-receipt"))?
                    .count
                return dead && archived == 1
            }
            #expect(settled)
            #expect(try await receipts.receipt(id: ids[0])?.status == .credited)
            #expect(try await receipts.receipt(id: ids[2])?.status == .credited)
            #expect(try await receipts.receipt(id: ids[1])?.reason == "refused: transaction t-bad has no product id")
            let unreadable = try #require(
                try await DeadLetterRepository(database).deadLetters(receiptID: "not-a-receipt").first)
            #expect(unreadable.reason == "unparseable_message")
            #expect(unreadable.body == Data("garbage".utf8))
            #expect(unreadable.sourceQueue == topology.fulfilQueue)
            let account = try #require(try await LedgerRepository(database).account(id: "player"))
            #expect(Set(account.ledger.map(\.transactionID)) == ["t-good", "t-good-2"])
            #expect(try await LedgerRepository(database).audit().isEmpty)
            let drained = await eventually { (try? await connection.queueStatus(topology.fulfilQueue).messages) == 0 }
            #expect(drained)
        }
    }
}
