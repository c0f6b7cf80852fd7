import Foundation

/// `application/x-www-form-urlencoded` fields (a posted form or a query string); the
/// first value of a repeated name wins.
struct FormValues: Sendable {
    private var values: [String: String] = [:]

    init(_ encoded: String?) {
        for pair in (encoded ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), !name.isEmpty, values[name] == nil else { continue }
            values[name] = parts.count > 1 ? Self.decode(parts[1]) ?? "" : ""
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

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
