import Broker
import Foundation
import PipelineCore
import Testing

/// How submissions are packed into messages and read back, without a broker.
@Suite struct SubmissionMessagesTests {
    let topology = PipelineTopology(prefix: "pack")

    func submissions(_ count: Int) -> [Submission] {
        (0..<count).map {
            Submission(
                id: "r-\($0)", accountID: "player", evidence: .receipt("YQ=="), orderID: "o-\($0)",
                submittedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double($0)))
        }
    }

    @Test func aReceiptAloneTravelsAsItAlwaysDid() throws {
        var submission = submissions(1)[0]
        submission.traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let messages = SubmissionMessages.messages([submission], topology: topology, type: "submission")
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(message.ids == ["r-0"])
        #expect(message.message.body == Array(try WireCoding.encoder().encode(submission)))
        #expect(message.message.properties.messageID == "r-0")
        #expect(message.message.properties.type == "submission")
        #expect(message.message.properties.headers[MessageHeader.traceparent]?.stringValue == submission.traceparent)
        #expect(message.message.properties.headers[SubmissionMessages.countHeader] == nil)
        #expect(message.message.routingKey == PipelineTopology.validateKey)
        #expect(message.message.exchange == topology.workExchange)
    }

    @Test func manyReceiptsAreSplitIntoMessagesOfAtMostTheLimit() {
        let all = submissions(70)
        let messages = SubmissionMessages.messages(all, topology: topology, type: "submission")
        #expect(messages.map(\.ids.count) == [32, 32, 6])
        #expect(messages.flatMap(\.ids) == all.map(\.id))
        #expect(messages.map { $0.message.properties.headers[SubmissionMessages.countHeader]?.intValue } == [32, 32, 6])
        // A last group of one travels as a receipt alone
        let odd = SubmissionMessages.messages(submissions(33), topology: topology, type: "submission")
        #expect(odd.map(\.ids.count) == [32, 1])
        #expect(odd.last?.message.properties.messageID == "r-32")
    }

    @Test func eachPartReadsAsIfItsReceiptHadComeAlone() throws {
        var all = submissions(3)
        all[1].traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let message = try #require(SubmissionMessages.messages(all, topology: topology, type: "submission").first)
        var properties = message.message.properties
        properties.headers[MessageHeader.attempts] = .int(0)
        let parts = try #require(SubmissionMessages.parts(body: message.message.body, properties: properties))
        #expect(parts.map(\.submission.id) == ["r-0", "r-1", "r-2"])
        for (part, submission) in zip(parts, all) {
            var alone = try #require(
                SubmissionMessages.messages([submission], topology: topology, type: "submission").first?.message)
            alone.properties.headers[MessageHeader.attempts] = .int(0)
            #expect(part.body == alone.body)
            #expect(part.properties.messageID == alone.properties.messageID)
            #expect(part.properties.headers == alone.properties.headers)
            #expect(part.submission.orderID == submission.orderID)
            #expect(part.submission.submittedAt == submission.submittedAt)
        }
    }

    @Test func whatIsNeitherOneSubmissionNorSeveralHasNoParts() {
        let properties = MessageProperties()
        for body in ["garbage", "[]", "[{\"receipt_id\": 1}]", "{}", ""] {
            #expect(SubmissionMessages.parts(body: Array(body.utf8), properties: properties) == nil, "\(body)")
        }
        let spaced = Array(" \n[".utf8) + Array(try! WireCoding.encoder().encode(submissions(2))).dropFirst()
        #expect(SubmissionMessages.parts(body: spaced, properties: properties)?.count == 2)
    }
}
