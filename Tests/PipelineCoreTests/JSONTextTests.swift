import Foundation
import Testing

@testable import PipelineCore

/// `JSONText` writes what `WireCoding.encoder()` writes: strings escaped alike (every ASCII
/// character, and Unicode left as UTF-8), integers at their extremes, nulls, dates, and
/// commas between members and elements at any depth.
struct JSONTextTests {
    private static func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try WireCoding.encoder().encode(value), as: UTF8.self)
    }

    @Test func everyCharacterIsEscapedAsTheEncoderEscapesIt() throws {
        var all = ""
        for byte in 0..<0x80 { all.unicodeScalars.append(UnicodeScalar(UInt8(byte))) }
        let strings = [
            all, "", "é日本😀\u{2028}\u{2029}", "a/b\\c\"d", "e\u{301}", String(repeating: "\u{1}x", count: 50),
        ]
        for string in strings {
            var json = JSONText()
            json.string(string)
            #expect(json.text == (try Self.encoded(string)), "\(Array(string.utf8))")
        }
    }

    @Test func integersDatesAndNulls() throws {
        for value in [0, 1, -1, 9, 10, -10, 1_234_567_890, Int.max, Int.min, Int.max - 1, Int.min + 1] {
            var json = JSONText()
            json.int(value)
            #expect(json.text == (try Self.encoded(value)))
        }
        let date = Date(timeIntervalSince1970: 1_764_000_000.729)
        var json = JSONText()
        json.array { json in
            json.date(date)
            json.null()
            json.bool(true)
            json.bool(false)
        }
        #expect(json.text == "[\(try Self.encoded(date)),null,true,false]")
        #expect(json.text.hasPrefix("[\"2025-11-24T"))
    }

    /// A missing optional is null as a member's value, and leaves the member out with
    /// `ifPresent`, as `encode(_:forKey:)` and `encodeIfPresent` do.
    @Test func optionalMembersAreNullOrLeftOutAsTheEncoderDoes() throws {
        struct Shape: Encodable {
            var always: String?
            var list: [Int]
            var present: Date?
            var absent: Int?

            enum CodingKeys: String, CodingKey { case absent, always, list, present }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeIfPresent(absent, forKey: .absent)
                try container.encode(always, forKey: .always)
                try container.encode(list, forKey: .list)
                try container.encodeIfPresent(present, forKey: .present)
            }
        }
        let value = Shape(always: nil, list: [3, 1], present: Date(timeIntervalSince1970: 0), absent: nil)
        var json = JSONText()
        json.object { json in
            json.member("absent", ifPresent: value.absent)
            json.member("always", value.always)
            json.member("list", value.list)
            json.member("present", ifPresent: value.present)
        }
        #expect(json.text == (try Self.encoded(value)))
        #expect(json.text == #"{"always":null,"list":[3,1],"present":"1970-01-01T00:00:00.000Z"}"#)
    }

    @Test func membersAndElementsAreSeparatedAtEveryDepth() throws {
        struct Inner: Encodable {
            var a: [Int]
            var b: [String: Int]
        }
        struct Outer: Encodable {
            var empty: [Int]
            var list: [Inner]
            var name: String
        }
        let value = Outer(
            empty: [], list: [Inner(a: [1, 2], b: [:]), Inner(a: [], b: ["x": 1, "y": 2])], name: "n")
        var json = JSONText()
        json.object { json in
            json.key("empty")
            json.array { _ in }
            json.key("list")
            json.array { json in
                for inner in value.list {
                    json.object { json in
                        json.key("a")
                        json.array { json in for n in inner.a { json.int(n) } }
                        json.key("b")
                        json.object { json in
                            for (key, n) in inner.b.sorted(by: { $0.key < $1.key }) {
                                json.key(key)
                                json.int(n)
                            }
                        }
                    }
                }
            }
            json.key("name")
            json.string(value.name)
        }
        #expect(json.text == (try Self.encoded(value)))
    }
}
