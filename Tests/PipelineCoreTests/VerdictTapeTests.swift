import Foundation
import PipelineTesting
import Testing

@testable import PipelineCore

/// `Verdict.decode` reads verdicts from a `JSONTape` and leaves to `JSONDecoder` what the tape
/// will not judge: on every input it must give what `WireCoding.decoder()` gives.
@Suite struct VerdictTapeTests {
    private static func reference(_ bytes: [UInt8]) -> Verdict? {
        try? WireCoding.decoder().decode(Verdict.self, from: Data(bytes))
    }

    @Test func verdictsAsValidatorsWriteThem_areReadByTheTape() throws {
        var random = FuzzRandom(seed: 0x7E_2D1C7)
        for round in 0..<2_000 {
            let bytes = random.verdict().wireJSON
            let tape = try #require(JSONTape(bytes))
            let expected = try #require(Self.reference(bytes))
            #expect(try Verdict(tape.root) == expected, "round \(round)")
            #expect(Verdict.decode(bytes) == expected, "round \(round)")
        }
    }

    @Test func changedVerdicts_decodeAsJSONDecoderDecodesThem() throws {
        var random = FuzzRandom(seed: 0xC4A_46ED)
        var answeredByTape = 0
        let count = 3_000
        for round in 0..<count {
            let bytes = try random.changed(random.verdict().wireJSON)
            #expect(
                Verdict.decode(bytes) == Self.reference(bytes),
                "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            if let tape = JSONTape(bytes), (try? Verdict(tape.root)) != nil { answeredByTape += 1 }
        }
        // Many changes leave a verdict JSONDecoder reads too; those must take the tape's path.
        #expect(answeredByTape > count / 4, "the tape answered \(answeredByTape) of \(count)")
    }

    @Test func damagedVerdicts_areRefusedOrReadAsJSONDecoderReadsThem() {
        var random = FuzzRandom(seed: 0xDA_4A6E)
        for round in 0..<2_000 {
            let bytes = random.damaged(random.verdict().wireJSON)
            #expect(Verdict.decode(bytes) == Self.reference(bytes), "round \(round)")
        }
    }
}
