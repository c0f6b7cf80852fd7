import Foundation
import PipelineTesting
import Testing

@testable import PipelineCore

/// `Submission.decode` reads submissions from a `JSONTape` and leaves to `JSONDecoder` what the
/// tape will not judge: on every input it must give what `WireCoding.decoder()` gives.
@Suite struct SubmissionTapeTests {
    private static func reference(_ bytes: [UInt8]) -> Submission? {
        try? WireCoding.decoder().decode(Submission.self, from: Data(bytes))
    }

    @Test func submissionsAsTheIntakeWritesThem_areReadByTheTape() throws {
        var random = FuzzRandom(seed: 0x5B_2026)
        for round in 0..<2_000 {
            let bytes = random.submission().wireJSON
            let tape = try #require(JSONTape(bytes))
            let expected = try #require(Self.reference(bytes))
            #expect(try Submission(tape.root) == expected, "round \(round)")
            #expect(Submission.decode(bytes) == expected, "round \(round)")
        }
    }

    @Test func changedSubmissions_decodeAsJSONDecoderDecodesThem() throws {
        var random = FuzzRandom(seed: 0x5C_4A6E)
        var answeredByTape = 0
        let count = 3_000
        for round in 0..<count {
            var bytes = try random.changed(random.submission().wireJSON)
            // Now and then a second piece of evidence, which JSONDecoder refuses.
            if random.oneIn(10), var object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] {
                object[random.pick(["receipt_data", "signed_payload", "subscription_check"])] = "second"
                bytes = Array(try JSONSerialization.data(withJSONObject: object))
            }
            #expect(
                Submission.decode(bytes) == Self.reference(bytes),
                "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            if let tape = JSONTape(bytes), (try? Submission(tape.root)) != nil { answeredByTape += 1 }
        }
        #expect(answeredByTape > count / 4, "the tape answered \(answeredByTape) of \(count)")
    }

    @Test func damagedSubmissions_areRefusedOrReadAsJSONDecoderReadsThem() {
        var random = FuzzRandom(seed: 0x5D_4A6E)
        for round in 0..<2_000 {
            let bytes = random.damaged(random.submission().wireJSON)
            #expect(Submission.decode(bytes) == Self.reference(bytes), "round \(round)")
        }
    }
}
