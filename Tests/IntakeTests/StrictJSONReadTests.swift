import Foundation
import PipelineCore
import PipelineTesting
import Testing

@testable import Intake

/// The bodies the strict scan builds itself are, value for value and type for type, what
/// `JSONSerialization` reads; whatever it does not build (a number, a boolean, text that is not
/// UTF-8, a body that is not an object) is left to `JSONSerialization`, and whatever either
/// refuses is refused the same.
@Suite struct StrictJSONReadTests {
    @Test func builtBodiesAreWhatJSONSerializationReads() throws {
        var random = FuzzRandom(seed: 18)
        var built = 0
        for round in 0..<2_000 {
            var plain = true
            let text = "{" + Self.members(&random, depth: 0, plain: &plain) + "}"
            let bytes = Array(text.utf8)
            let (object, paths) = try StrictJSON.read(bytes)
            #expect(paths == (try StrictJSON.check(bytes)), "round \(round)")
            let reference = try JSONSerialization.jsonObject(with: Data(bytes))
            guard let object else {
                // Not built: only when it held a number or a boolean.
                #expect(!plain, "round \(round): \(text)")
                continue
            }
            built += 1
            #expect(Self.same(object, reference), "round \(round): \(text)")
        }
        // Most bodies hold none of what is left to JSONSerialization.
        #expect(built > 1_000, "\(built) of 2,000 built")
    }

    @Test func whatIsNotBuiltIsLeftToJSONSerialization() throws {
        for text in [
            #"{"a": 1}"#, #"{"a": [true]}"#, #"{"a": {"b": -0.5e3}}"#, #"["a"]"#, #""a""#, "null", "12",
        ] {
            #expect(try StrictJSON.read(Array(text.utf8)).object == nil, "\(text)")
        }
        // Text that is not UTF-8, which JSONSerialization refuses
        let invalid: [UInt8] = Array(#"{"a": ""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        #expect(try StrictJSON.read(invalid).object == nil)
        #expect((try? JSONSerialization.jsonObject(with: Data(invalid))) == nil)
        let invalidKey: [UInt8] = Array(#"{""#.utf8) + [0xC3] + Array(#"": "a"}"#.utf8)
        #expect(try StrictJSON.read(invalidKey).object == nil)
    }

    @Test func nullsEscapesAndEmptiesAreBuilt() throws {
        let text = #"{"a": null, "b": [], "c": {}, "d": "\u00e9\n\ud83d\ude00\/", "e": [null, "x", {"f": []}]}"#
        let object = try #require(try StrictJSON.read(Array(text.utf8)).object)
        #expect(Self.same(object, try JSONSerialization.jsonObject(with: Data(text.utf8))))
        #expect(object["a"] is NSNull && object["d"] as? String == "é\n😀/")
    }

    /// `"key": value` pairs, keys unique, values of every JSON type now and then.
    /// `plain` is set false when a number or a boolean is written.
    static func members(_ random: inout FuzzRandom, depth: Int, plain: inout Bool) -> String {
        let count = random.below(depth == 0 ? 6 : 4)
        return (0..<count).map { index in
            let key = random.oneIn(4) ? random.wireText() + "\(index)" : "k\(index)"
            return Self.quoted(key) + ": " + value(&random, depth: depth + 1, plain: &plain)
        }.joined(separator: random.oneIn(3) ? " , " : ",")
    }

    static func value(_ random: inout FuzzRandom, depth: Int, plain: inout Bool) -> String {
        switch random.below(depth > 3 ? 3 : 8) {
        case 0, 1: return quoted(random.wireText())
        case 2: return "null"
        case 3: return "{" + members(&random, depth: depth, plain: &plain) + "}"
        case 4, 5:
            return "["
                + (0..<random.below(4)).map { _ in value(&random, depth: depth + 1, plain: &plain) }
                .joined(separator: ", ") + "]"
        case 6:
            guard random.oneIn(8) else { return quoted("plain") }
            plain = false
            return random.pick(["true", "false"])
        default:
            guard random.oneIn(8) else { return "[]" }
            plain = false
            return random.pick(["0", "-1", "2.5", "1e3", "9223372036854775808"])
        }
    }

    /// `text` as a JSON string, escaped as JSONEncoder escapes it, or with `\u` escapes.
    static func quoted(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    /// Type for type: strings, nulls, arrays and objects only (what is built).
    static func same(_ built: Any, _ reference: Any) -> Bool {
        switch (built, reference) {
        case (let a as String, let b as String): return a == b
        case (is NSNull, is NSNull): return true
        case (let a as [Any], let b as [Any]): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (let a as [String: Any], let b as [String: Any]):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { same(value, $0) } ?? false }
        default: return false
        }
    }
}
