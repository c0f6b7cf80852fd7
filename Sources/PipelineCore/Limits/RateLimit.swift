/// A token-bucket limit: `rate` requests a second on average, up to `burst` at once.
///
/// Written in settings as `200/s burst 400`, `60/m`, `3/h burst 5`, or a bare number per
/// second (`200`, burst twice the rate); `off` disables the limit.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Tokens added per second.
    public var perSecond: Double
    /// The bucket's size: how many requests may come at once after a quiet spell.
    public var burst: Int

    public init(perSecond: Double, burst: Int) {
        precondition(perSecond > 0 && burst >= 1, "a rate limit needs a positive rate and burst")
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Parses `N`, `N/s`, `N/m`, `N/h`, each optionally followed by `burst B`; nil for `off`.
    /// - Throws: ``SettingError`` naming `variable`; the message repeats the (harmless) value.
    public static func parse(_ text: String, variable: String) throws(SettingError) -> RateLimit? {
        let words = text.lowercased().split(separator: " ", omittingEmptySubsequences: true)
        if words == ["off"] { return nil }
        let problem = SettingError(
            variable: variable, problem: "must be like '200/s burst 400', '60/m', '200' or 'off', got '\(text)'")
        guard words.count == 1 || (words.count == 3 && words[1] == "burst") else { throw problem }
        let parts = words[0].split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let count = Int(parts[0]), (1...1_000_000).contains(count) else {
            throw problem
        }
        let seconds: Double
        switch parts.count == 2 ? parts[1] : "s" {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3600
        default: throw problem
        }
        var burst = max(1, min(count * 2, 2_000_000))
        if words.count == 3 {
            guard let explicit = Int(words[2]), (1...2_000_000).contains(explicit) else { throw problem }
            burst = explicit
        }
        return RateLimit(perSecond: Double(count) / seconds, burst: burst)
    }

    public var description: String { "\(perSecond)/s burst \(burst)" }
}

extension EnvironmentReader {
    /// A ``RateLimit`` setting; `default` when unset, nil when set to `off`.
    public func rateLimit(_ name: String, default defaultValue: String) throws(SettingError) -> RateLimit? {
        try RateLimit.parse(string(name, default: defaultValue), variable: name)
    }

    /// `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`); `default` when unset.
    public func bool(_ name: String, default defaultValue: Bool) throws(SettingError) -> Bool {
        guard let raw = optional(name) else { return defaultValue }
        switch raw.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: throw SettingError(variable: name, problem: "must be true or false, got '\(raw)'")
        }
    }
}
