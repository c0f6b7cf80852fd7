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

extension FuzzRandom {
    /// A message's JSON object with, now and then, a member dropped, given a value of another
    /// type, or an unknown one added, at the top or in any object within.
    mutating func change(_ object: inout [String: Any]) {
        let odd: [Any] = [
            NSNull(), 1, 1.5, "text", "2026-11-28T04:03:34.123Z", "yesterday", true, [String: Any](), [Any](),
            -7, Int64.max,
        ]
        if oneIn(3), let key = object.keys.sorted().randomElement(using: &self) {
            if oneIn(2) { object[key] = nil } else { object[key] = odd[below(odd.count)] }
        }
        if oneIn(5) { object["unknown"] = odd[below(odd.count)] }
        for key in object.keys.sorted() where oneIn(2) {
            if var inner = object[key] as? [String: Any] {
                change(&inner)
                object[key] = inner
            } else if var list = object[key] as? [[String: Any]], !list.isEmpty {
                change(&list[below(list.count)])
                object[key] = list
            }
        }
    }

    /// `json` read, changed as above, and written again.
    mutating func changed(_ json: [UInt8]) throws -> [UInt8] {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        change(&object)
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    /// `json` cut short or with a byte overwritten.
    mutating func damaged(_ json: [UInt8]) -> [UInt8] {
        var bytes = json
        if oneIn(2) { return Array(bytes.prefix(below(bytes.count))) }
        bytes[below(bytes.count)] = UInt8.random(in: .min ... .max, using: &self)
        return bytes
    }
}
