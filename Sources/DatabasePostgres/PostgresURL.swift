import Database
import Foundation
import PipelineCore

/// The parts of a libpq-style URL,
/// `postgres://user:password@host1:5432,host2:5432/database?key=value&…`.
///
/// `URLComponents` takes one host, so the URL is split here: the user and password end at the
/// last `@` before the first `/` (libpq's rule), the host list at the next `/`, `?` or `#`.
/// No message ever holds the user information: a refused host entry comes from after the `@`.
struct PostgresURL {
    var user: String
    var password: String?
    var servers: [PostgresLocation.Server]
    var database: String
    var parameters: [String: String]

    static let expected = "expected postgres://user:password@host:5432/database"

    init(_ url: String, refuse: (String) -> SettingError) throws(SettingError) {
        guard let separator = url.range(of: "://") else { throw refuse("is not a URL; \(Self.expected)") }
        let scheme = url[..<separator.lowerBound]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { throw refuse("is not a URL; \(Self.expected)") }
        guard ["postgres", "postgresql"].contains(scheme.lowercased()) else {
            throw refuse("must start with postgres:// (got \(scheme.lowercased())://)")
        }
        let rest = url[separator.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<slash].lastIndex(of: "@") else {
            // An `@` further on is a password with a `/` in it: say so without showing it.
            if rest[slash...].contains("@") {
                throw refuse("write a '/' in the user or password as %2F")
            }
            throw refuse("names no user")
        }
        (user, password) = try Self.credentials(rest[..<at], refuse: refuse)
        let afterAt = rest.index(after: at)
        let hostsEnd = rest[afterAt...].firstIndex { "/?#".contains($0) } ?? rest.endIndex
        let hostList = rest[afterAt..<hostsEnd]
        guard !hostList.isEmpty else { throw refuse("names no host") }
        servers = try hostList.split(separator: ",", omittingEmptySubsequences: false).enumerated().map {
            (index, entry) throws(SettingError) in
            try Self.server(entry, number: index + 1, refuse: refuse)
        }
        var tail = rest[hostsEnd...]
        if let hash = tail.firstIndex(of: "#") { tail = tail[..<hash] }
        let question = tail.firstIndex(of: "?") ?? tail.endIndex
        let path = tail[..<question].drop { $0 == "/" }
        guard let database = String(path).removingPercentEncoding, !database.isEmpty, !database.contains("/")
        else { throw refuse("names no database (…:5432/NAME)") }
        self.database = database
        parameters = try Self.parameters(tail[question...].dropFirst(), refuse: refuse)
    }

    private static func credentials(_ userInfo: Substring, refuse: (String) -> SettingError) throws(SettingError)
        -> (String, String?)
    {
        let colon = userInfo.firstIndex(of: ":")
        let escape = "the user or password holds a malformed %-escape"
        guard let user = String(userInfo[..<(colon ?? userInfo.endIndex)]).removingPercentEncoding else {
            throw refuse(escape)
        }
        var password: String?
        if let colon {
            guard let decoded = String(userInfo[userInfo.index(after: colon)...]).removingPercentEncoding else {
                throw refuse(escape)
            }
            password = decoded
        }
        guard !user.isEmpty else { throw refuse("names no user") }
        return (user, password)
    }

    /// One entry of the host list: `host`, `host:port`, `[IPv6]` or `[IPv6]:port`.
    private static func server(_ entry: Substring, number: Int, refuse: (String) -> SettingError) throws(SettingError)
        -> PostgresLocation.Server
    {
        func malformed(_ problem: String) -> SettingError {
            refuse("host entry \(number) ('\(entry)') \(problem)")
        }
        guard !entry.isEmpty else {
            throw refuse("host entry \(number) is empty (hosts are host:port, comma-separated)")
        }
        let host: Substring
        var portText: Substring?
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { throw malformed("opens '[' without closing it") }
            host = entry[entry.index(after: entry.startIndex)..<close]
            let after = entry[entry.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw malformed("has something after ']' other than :PORT") }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || ":.%".contains($0) }) else {
                throw malformed("is not an IPv6 address in brackets")
            }
        } else {
            let parts = entry.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw malformed("has several ':'; write an IPv6 address as [::1]:5432") }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_".contains($0)) })
            else { throw malformed("is not a host name or address") }
        }
        var port = 5432
        if let portText {
            guard portText.allSatisfy(\.isASCII), let number = Int(portText), (1...65_535).contains(number) else {
                throw malformed("has port '\(portText)': port must be 1...65535")
            }
            port = number
        }
        return PostgresLocation.Server(host: String(host), port: port)
    }

    private static func parameters(_ query: Substring, refuse: (String) -> SettingError) throws(SettingError)
        -> [String: String]
    {
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = String(parts[0]).removingPercentEncoding,
                let value = String(parts.count == 2 ? parts[1] : "").removingPercentEncoding
            else { throw refuse("a query parameter holds a malformed %-escape") }
            parameters[key] = value
        }
        return parameters
    }
}
