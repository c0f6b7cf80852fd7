/// Untrusted text made safe for one log line: what a client sent (an operator name at a
/// failed login, a header) must not forge log lines (newlines), drive the operator's
/// terminal (escape sequences) or flood the log (length).
///
/// ```swift
/// logger.warning("console: failed login", metadata: ["operator": "\(LogText.untrusted(name))"])
/// ```
public enum LogText {
    /// The default bound, in characters, of one untrusted value.
    public static let defaultLimit = 128

    /// `text` with control and format characters escaped (`\n`, `\r`, `\t`, `\\`,
    /// `\u{1B}`...) and cut to `limit` characters, the cut marked with `…(N more)`.
    public static func untrusted(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        var out = ""
        var count = 0
        var dropped = 0
        for scalar in text.unicodeScalars {
            if count >= limit {
                dropped += 1
                continue
            }
            count += 1
            out += escaped(scalar)
        }
        return dropped == 0 ? out : out + "…(\(dropped) more)"
    }

    /// Control characters escaped, nothing cut, backslashes left alone: for whole log lines,
    /// so that no value, however it got there, can start a line of its own.
    public static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return text.unicodeScalars.map { isControl($0) ? escaped($0) : String($0) }.joined()
    }

    static func escaped(_ scalar: Unicode.Scalar) -> String {
        guard needsEscape(scalar) else { return String(scalar) }
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\\": return "\\\\"
        default: return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }

    /// C0 and C1 controls, DEL, line and paragraph separators, and format characters
    /// (bidirectional overrides that reorder what a terminal shows); and the backslash, so
    /// that an escape in the output is always ours.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) || scalar == "\\"
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
