import Foundation

/// Reads `IAP_*` settings from the environment, naming the variable in every error.
///
/// ```swift
/// let env = EnvironmentReader()
/// let port = try env.int("IAP_HTTP_PORT", default: 8080, range: 0...65535)
/// ```
public struct EnvironmentReader: Sendable {
    public let values: [String: String]

    /// - Parameter values: the variables to read; the process environment by default.
    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// The trimmed value, or nil when unset or blank.
    public func optional(_ name: String) -> String? {
        guard let raw = values[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        return raw
    }

    public func string(_ name: String, default defaultValue: String) -> String {
        optional(name) ?? defaultValue
    }

    public func required(_ name: String) throws(SettingError) -> String {
        guard let value = optional(name) else { throw SettingError(variable: name, problem: "is required but not set") }
        return value
    }

    public func int(_ name: String, default defaultValue: Int, range: ClosedRange<Int>) throws(SettingError) -> Int {
        guard let raw = optional(name) else { return defaultValue }
        guard let value = Int(raw), range.contains(value) else {
            throw SettingError(
                variable: name, problem: "must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(raw)'"
            )
        }
        return value
    }

    /// A comma-separated list, blanks dropped.
    public func list(_ name: String) -> [String] {
        (optional(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// An absolute http(s) URL.
    public func httpURL(_ name: String, default defaultValue: String? = nil) throws(SettingError) -> String? {
        guard let raw = optional(name) ?? defaultValue else { return nil }
        guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw SettingError(variable: name, problem: "must be an http:// or https:// URL, got '\(raw)'")
        }
        return raw
    }
}

extension EnvironmentReader {
    /// A variable that takes one of `choices`' names, each meaning its value; `fallback` when
    /// it is unset.
    /// - Throws: ``SettingError`` naming the variable and the names it takes.
    public func choice<Value>(_ name: String, _ choices: [String: Value], default fallback: String) throws(SettingError)
        -> Value
    {
        let raw = optional(name) ?? fallback
        guard let value = choices[raw] else {
            throw SettingError(
                variable: name,
                problem: "must be \(choices.keys.sorted().joined(separator: " or ")), got '\(raw.prefix(64))'")
        }
        return value
    }

    /// `IAP_CONSUMPTION_REFUND_PREFERENCE`: whether answers to the stores' refund reviews
    /// (Apple's consumption requests, Google's chargeback reviews) state a preference: `auto`
    /// (the default) does, `none` leaves it to the store.
    public func prefersRefunds() throws(SettingError) -> Bool {
        try choice("IAP_CONSUMPTION_REFUND_PREFERENCE", ["auto": true, "none": false], default: "auto")
    }
}
