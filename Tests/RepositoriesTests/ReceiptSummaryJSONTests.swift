import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

/// The intake's 202 and 200 bodies `JSONText` writes are, byte for byte, what the
/// `Encodable` conformance writes through `WireCoding.encoder()`: every status, ids as the
/// intake makes them and ids that need escaping.
struct ReceiptSummaryJSONTests {
    @Test func everySummaryIsWrittenAsTheEncoderWritesIt() throws {
        var random = FuzzRandom(seed: 29)
        for round in 0..<2_000 {
            let id = random.oneIn(2) ? TimeOrderedID.make() : random.wireText()
            let summary = ReceiptSummary(id: id, status: random.pick(ReceiptStatus.allCases))
            let reference = String(decoding: try WireCoding.encoder().encode(summary), as: UTF8.self)
            #expect(String(decoding: summary.jsonBytes(), as: UTF8.self) == reference, "round \(round)")
        }
    }

    @Test func theIntakesAnswerReadsBack() throws {
        let summary = ReceiptSummary(id: "01JDQ3K4Z8XW0000000000000", status: .received)
        #expect(
            String(decoding: summary.jsonBytes(), as: UTF8.self)
                == #"{"receipt_id":"01JDQ3K4Z8XW0000000000000","status":"received"}"#)
        #expect(try WireCoding.decoder().decode(ReceiptSummary.self, from: Data(summary.jsonBytes())) == summary)
    }
}
