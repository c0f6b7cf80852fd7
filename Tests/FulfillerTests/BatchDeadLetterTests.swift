import Broker
import Foundation
import PipelineCore
import PipelineTesting
import Store
import StoreSQLite
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
            let batch = SubmissionMessages.messages(submissions, topology: topology, type: "submission")
            #expect(batch.count == 1)
            _ = try #require(await connection.publish(batch.map(\.message)).first).get()
            for try await delivery in connection.consume(queue: topology.validateQueue, prefetch: 1) {
                delivery.nack(requeue: false)
                break
            }

            // Then each receipt is marked dead on its own, its letter holding its body alone
            let dead = await eventually {
                var statuses: [ReceiptStatus?] = []
                for id in ids { statuses.append(try? await ReceiptStore(database).receipt(id: id)?.status) }
                return statuses.allSatisfy { $0 == .dead }
            }
            #expect(dead)
            for id in ids {
                let letters = try await DeadLetterStore(database).deadLetters(receiptID: id)
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
