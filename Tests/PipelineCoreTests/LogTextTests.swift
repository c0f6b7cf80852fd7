import PipelineCore
import Testing

/// Untrusted values in log lines: one line each, no terminal control, bounded.
@Suite struct LogTextTests {
    @Test(arguments: [
        ("alice", "alice"),
        ("a\nb\r\tc", "a\\nb\\r\\tc"),
        ("red\u{1B}[31m", "red\\u{1B}[31m"),
        ("back\\slash", "back\\\\slash"),
        ("rtl\u{202E}txt", "rtl\\u{202E}txt"),
        ("bell\u{07}del\u{7F}c1\u{85}", "bell\\u{7}del\\u{7F}c1\\u{85}"),
        ("café 日本", "café 日本"),
    ])
    func controlCharactersAreEscaped(text: String, logged: String) {
        #expect(LogText.untrusted(text) == logged)
    }

    @Test func longValuesAreCutAndSaySo() {
        let logged = LogText.untrusted(String(repeating: "x", count: 1000), limit: 10)
        #expect(logged == "xxxxxxxxxx…(990 more)")
    }

    @Test func wholeLinesKeepBackslashesButNotNewlines() {
        #expect(LogText.escapingControls("path C:\\x\nforged") == "path C:\\x\\nforged")
        #expect(LogText.escapingControls("plain") == "plain")
    }
}
