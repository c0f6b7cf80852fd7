import Foundation
import PipelineCore
import Testing

@testable import Intake

/// The strict syntax check on its own: strings without escapes take a fast path to their end,
/// so each case below puts what must be found after a long run of plain bytes, and before one.
@Suite struct StrictJSONTests {
    /// Plain base64 bytes before what each case checks: none, or 6 KB of them.
    static func plain(_ length: Int) -> String { String(repeating: "QUJD", count: length / 4) }

    static func paths(_ json: String) throws(APIError) -> [[String]] {
        try StrictJSON.check(Array(json.utf8))
    }

    static func problem(_ json: String) -> String? {
        do {
            _ = try paths(json)
            return nil
        } catch {
            return "\(error.code): \(error.message)"
        }
    }

    @Test(arguments: [0, 6_000])
    func stringsReadAsTheyAre_escapesAndAll(plainBytes: Int) throws {
        let prefix = Self.plain(plainBytes)
        #expect(try Self.paths(#"{"a": "\#(prefix)", "b": "\#(prefix)\n\#(prefix)", "c": [1, "x"]}"#) == [])
        // Escaped line breaks are base64's; an escaped NUL, DEL or C1 control is found, naming the member.
        #expect(try Self.paths(#"{"a": "\#(prefix)\r\n\#(prefix)=="}"#) == [])
        #expect(try Self.paths(#"{"a": "\#(prefix)\u0000"}"#) == [["a"]])
        #expect(try Self.paths("{\"a\": {\"b\": \"\(prefix)\u{7F}\"}}") == [["a", "b"]])
        #expect(try Self.paths("{\"a\": [\"ok\", \"\(prefix)\u{85}\(prefix)\"]}") == [["a", "[1]"]])
        #expect(try Self.paths(#"{"\#(prefix)\t": 1}"#) == [["\(prefix)\t"]])
        #expect(try Self.paths("{\"\(prefix)\u{7F}\": 1, \"é\u{85}\": 2}") == [["\(prefix)\u{7F}"], ["é\u{85}"]])
    }

    @Test(arguments: [0, 6_000])
    func malformedStringsAreRefusedNamingTheProblem(plainBytes: Int) {
        let prefix = Self.plain(plainBytes)
        #expect(Self.problem("{\"a\": \"\(prefix)\u{01}\"}")?.contains("control character in a string") == true)
        #expect(Self.problem("{\"a\": \"\(prefix)\n\"}")?.contains("control character in a string") == true)
        #expect(Self.problem(#"{"a": "\#(prefix)"#)?.contains("unterminated string") == true)
        #expect(Self.problem(#"{"a": "\#(prefix)\"#)?.contains("unterminated string") == true)
        #expect(Self.problem(#"{"a": "\#(prefix)\q"}"#)?.hasPrefix("invalid_json") == true)
    }

    @Test func keysAreComparedAsTheyRead_escapedOrNot() {
        #expect(Self.problem(#"{"a": 1, "\u0061": 2}"#)?.hasPrefix("duplicate_key") == true)
        #expect(
            Self.problem(#"{"\#(Self.plain(6_000))": 1, "\#(Self.plain(6_000))": 2}"#)?.hasPrefix("duplicate_key")
                == true)
        #expect(Self.problem(#"{"a\"b": 1, "a\"b ": 2}"#) == nil)
    }
}
