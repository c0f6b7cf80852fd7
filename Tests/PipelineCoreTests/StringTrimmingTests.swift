import Foundation
import PipelineCore
import Testing

/// The quick trims give what Foundation's give, whatever sits at the ends.
struct StringTrimmingTests {
    @Test(arguments: [
        "", " ", "abc", " abc", "abc ", "\tabc\t", "\nMIIT\n", "MIIT\r\n", "a b", "\u{00A0}12\u{00A0}", "é",
        "12\u{2028}",
        "\u{3000}x", "~x!",
    ])
    func agreeWithFoundation(_ text: String) {
        #expect(text.trimmedOfWhitespace == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmedOfWhitespaceAndNewlines == text.trimmingCharacters(in: .whitespacesAndNewlines))
        let sub = text[...]
        #expect(sub.trimmedOfWhitespace == text.trimmingCharacters(in: .whitespaces))
    }
}
