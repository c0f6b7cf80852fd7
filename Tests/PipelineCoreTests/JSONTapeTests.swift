import Foundation
import PipelineCore
import Testing

/// The tape reads strict JSON and refuses what it will not judge, leaving it to `JSONDecoder`.
@Suite struct JSONTapeTests {
    private func tape(_ text: String) -> JSONTape? { JSONTape(Array(text.utf8)) }

    @Test func readsMembersElementsAndScalars() throws {
        let root = try #require(tape(#" {"a": [1, -20, true, false, null, "x"], "b": {"c": "d"}, "e": 1.5e3} "#)).root
        #expect(root.kind == .object)
        let a = try #require(try root.member("a")?.elements)
        #expect(a.map(\.kind) == [.number, .number, .bool, .bool, .null, .string])
        #expect(try a[0].integer(Int.self) == 1)
        #expect(try a[1].integer(Int64.self) == -20)
        #expect(a[2].bool == true && a[3].bool == false && a[4].bool == nil)
        #expect(a[5].string == "x")
        #expect(try root.member("b")?.member("c")?.string == "d")
        #expect(try root.member("missing") == nil)
        #expect(try a[0].member("a") == nil, "a number has no members")
        #expect(root.elements == nil, "an object has no elements")
    }

    @Test func stringsAreUnescapedWhenRead() throws {
        let root = try #require(tape(#"{"s": "q\"b\\s\/n\nt\tu\u00e9\u0041 é"}"#)).root
        #expect(try root.member("s")?.string == "q\"b\\s/n\nt\tu\u{e9}A \u{e9}")
    }

    @Test func refusesWhatIsNotStrictJSON() {
        let refused = [
            "", "{", "}", "{\"a\":}", "{\"a\" 1}", "{\"a\":1,}", "[1,]", "[01]", "[1.]", "[.5]", "[1e]", "[+1]",
            "[tru]", "[nul]", "{\"a\":1} x", "{'a':1}", "[\"\u{01}\"]", "[\"\\x\"]", "[\"\\u12\"]", "[\"open]",
            "{\"a\":1}}", "[NaN]", "[Infinity]",
        ]
        for text in refused { #expect(tape(text) == nil, "\(text)") }
        #expect(JSONTape([0x5B, 0x22, 0xC3, 0x22, 0x5D]) == nil, "invalid UTF-8")
    }

    @Test func refusesWhatItLeavesToJSONDecoder() {
        #expect(tape(#"["\ud83d\ude00"]"#) == nil, "an escaped surrogate, even a paired one")
        #expect(tape(String(repeating: "[", count: 65) + String(repeating: "]", count: 65)) == nil, "deeper than 64")
        #expect(tape(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) != nil)
    }

    @Test func aLookupItWillNotJudgeThrows() throws {
        let root = try #require(tape(#"{"a": 1, "a": 2, "b\u005f": 3, "n": [1.0, 2e3, 99999999999999999999]}"#)).root
        #expect(throws: JSONTape.Unsure.self) { try root.member("a") }
        let plain = try #require(tape(#"{"b\u005f": 3}"#)).root
        #expect(throws: JSONTape.Unsure.self, "a key written with escapes") { try plain.member("zz") }
        let list = try #require(tape(#"[1.0, 2e3, 99999999999999999999, 300]"#))
        let numbers = try #require(list.root.elements)
        for number in numbers.prefix(3) {
            #expect(throws: JSONTape.Unsure.self) { try number.integer(Int64.self) }
        }
        #expect(throws: JSONTape.Unsure.self, "300 does not fit a UInt8") { try numbers[3].integer(UInt8.self) }
        #expect(try numbers[3].integer(Int.self) == 300)
    }
}
