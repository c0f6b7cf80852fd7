import Foundation

/// `application/x-www-form-urlencoded` fields (a posted form or a query string); the
/// first value of a repeated name wins.
struct FormValues: Sendable {
    private var values: [String: String] = [:]
    /// The first field whose name or value holds a control character (`%00` included), as
    /// it can be shown: forms and filters are one line of text, and a NUL truncates
    /// whatever C API it reaches.
    private(set) var controlCharacterField: String?

    init(_ encoded: String?) {
        for pair in (encoded ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), !name.isEmpty else { continue }
            let value = parts.count > 1 ? Self.decode(parts[1]) ?? "" : ""
            if controlCharacterField == nil, Self.hasControlCharacter(name + value) {
                controlCharacterField = String(name.unicodeScalars.filter { !Self.isControl($0) }.prefix(64))
            }
            if values[name] == nil { values[name] = value }
        }
    }

    subscript(_ name: String) -> String? { values[name] }

    /// The value, trimmed; nil when missing or blank.
    func text(_ name: String) -> String? {
        guard let value = values[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            return nil
        }
        return value
    }

    static func hasControlCharacter(_ text: String) -> Bool { text.unicodeScalars.contains(where: isControl) }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
