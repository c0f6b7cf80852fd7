import Broker
import Foundation
import PipelineCore
import PipelineTesting
import Synchronization
import Testing

@testable import Validator

/// A message carrying several receipts (MessagePack): each receipt is decided on
/// its own, and what follows from it is its own message.
@Suite struct ValidatorBatchTests {
    let helpers = ValidatorTests()

    func publishBatch(_ ids: [String], _ connection: AMQPConnection, _ topology: PipelineTopology) async throws {
        let (confirmed, failed) = await connection.publishSubmissions(
            ids.map(helpers.submission), topology: topology, type: "submission")
        #expect(confirmed == ids && failed.isEmpty)
    }

    /// The verdicts on the fulfil queue until `count` have come, by receipt id, and the
    /// number of receipts each message carried.
    func verdicts(_ count: Int, _ connection: AMQPConnection, _ topology: PipelineTopology) async throws
        -> (verdicts: [String: [Verdict]], packs: [Int])
    {
        var verdicts: [String: [Verdict]] = [:]
        var packs: [Int] = []
        for try await delivery in connection.consume(queue: topology.fulfilQueue, prefetch: 10) {
            let parts = try #require(delivery.parts)
            for part in parts {
                let verdict = try WireCoding.decoder().decode(Verdict.self, from: Data(part.body))
                #expect(part.properties.messageID == verdict.receiptID)
                #expect(part.properties.headers[MessageHeader.submittedAt]?.intValue != nil)
                verdicts[verdict.receiptID, default: []].append(verdict)
            }
            packs.append(parts.count)
            delivery.ack()
            if packs.reduce(0, +) >= count { break }
        }
        return (verdicts, packs)
    }

    @Test func eachReceiptOfAMessageIsDecidedOnItsOwn() async throws {
        // Given a valid, a forged and a flaky receipt in one message
        let calls = Mutex<[String: Int]>([:])
        let transaction = helpers.transaction
        try await helpers.withValidator(verifier: { submission in
            let call = calls.withLock {
                $0[submission.id, default: 0] += 1
                return $0[submission.id] ?? 0
            }
            switch submission.id {
            case "b-forged": return .rejected(reason: "apple_status_21003")
            case "b-flaky" where call == 1: return .transient(reason: "http_503")
            default: return .valid(environment: "Production", transactions: [transaction])
            }
        }) { connection, topology in
            try await publishBatch(["b-valid", "b-forged", "b-flaky"], connection, topology)

            // Then each has its verdict, the three in one message; the flaky one is retried
            // alone, through a delay tier, and its second attempt is counted as its own
            let (verdicts, packs) = try await verdicts(4, connection, topology)
            #expect(packs == [3, 1])
            #expect(verdicts["b-valid"]?.map(\.outcome) == [.valid])
            #expect(verdicts["b-forged"]?.map(\.outcome) == [.rejected])
            #expect(verdicts["b-forged"]?.first?.reason == "apple_status_21003")
            #expect(verdicts["b-flaky"]?.map(\.outcome) == [.retrying, .valid])
            #expect(verdicts["b-flaky"]?.last?.attempts == 2)
            #expect(calls.withLock { $0 } == ["b-valid": 1, "b-forged": 1, "b-flaky": 2])
            let drained = await eventually {
                (try? await connection.queueStatus(topology.validateQueue).messages) == 0
            }
            #expect(drained)
        }
    }

    @Test func aHopelessReceiptOfAMessageIsDeadLetteredByItself() async throws {
        let transaction = helpers.transaction
        try await helpers.withValidator(
            maxAttempts: 1,
            verifier: { submission in
                submission.id == "b-hopeless"
                    ? .transient(reason: "timeout") : .valid(environment: "Production", transactions: [transaction])
            }
        ) { connection, topology in
            try await publishBatch(["b-one", "b-hopeless", "b-two"], connection, topology)

            // Then the letter holds that receipt alone, as if it had come on its own
            let dead = try #require(try await helpers.first(topology.deadQueue, connection))
            #expect(dead.properties.messageID == "b-hopeless")
            #expect(dead.properties.headers[MessagePack.partIDsHeader] == nil)
            #expect(dead.properties.headers[MessageHeader.deadReason]?.stringValue == "attempts_exhausted: timeout")
            #expect(dead.properties.headers[MessageHeader.attempts]?.intValue == 1)
            let submission = try WireCoding.decoder().decode(Submission.self, from: Data(dead.body))
            #expect(submission.id == "b-hopeless")
            // And the others are valid, their verdicts in one message
            let (verdicts, packs) = try await verdicts(2, connection, topology)
            #expect(packs == [2])
            #expect(verdicts["b-one"]?.map(\.outcome) == [.valid])
            #expect(verdicts["b-two"]?.map(\.outcome) == [.valid])
        }
    }
}
