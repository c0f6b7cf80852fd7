import Foundation

/// One entry of `IAP_AMQP_URL`, parsed: a node, and what the entry says of what every node
/// of the list shares (nil where it leaves it out: entry 1's then, or the default).
struct AMQPURL: Equatable {
    var node: AMQPNode
    var user: String?
    var password: String?
    /// Nil for an empty path or `/`.
    var vhost: String?
    var heartbeat: Int?
    var connectTimeout: Duration?

    /// - Throws: ``AMQPURLError`` with only its problem set; the caller names the entry.
    init(_ text: String) throws(AMQPURLError) {
        guard !text.isEmpty else { throw AMQPURLError("empty (two commas in a row, or one at an end)") }
        guard let components = URLComponents(string: text) else { throw AMQPURLError("not a URL") }
        guard let scheme = components.scheme?.lowercased() else { throw AMQPURLError("no scheme (expected amqp://)") }
        guard scheme == "amqp" else {
            throw AMQPURLError(
                scheme == "amqps"
                    ? "amqps:// (TLS) is not supported yet" : "the scheme must be amqp://, not \(scheme)://")
        }
        guard let host = components.percentEncodedHost, !host.isEmpty else { throw AMQPURLError("no host") }
        node = AMQPNode(host: host.removingPercentEncoding ?? host)
        if let port = components.port {
            guard (1...65535).contains(port) else { throw AMQPURLError("port \(port) is out of range (1-65535)") }
            node.port = port
        }
        if let user = components.user { self.user = user }
        if let password = components.password { self.password = password }
        let path = components.percentEncodedPath
        if path.count > 1 {
            let encoded = String(path.dropFirst())
            guard !encoded.contains("/"), let decoded = encoded.removingPercentEncoding else {
                throw AMQPURLError("the vhost must be one path segment (write / as %2F)")
            }
            vhost = decoded
        }
        for item in components.queryItems ?? [] {
            switch item.name {
            case "heartbeat":
                guard let value = item.value.flatMap(Int.init), (0...3600).contains(value) else {
                    throw AMQPURLError("heartbeat must be 0...3600 seconds")
                }
                heartbeat = value
            case "connection_timeout":
                guard let value = item.value.flatMap(Int.init), value > 0 else {
                    throw AMQPURLError("connection_timeout must be a positive number of milliseconds")
                }
                connectTimeout = .milliseconds(value)
            default:
                throw AMQPURLError("unknown query parameter \(item.name)")
            }
        }
    }

    /// What this entry sets otherwise than `shared` (entry 1's settings, defaults filled in);
    /// nil when nothing. What the entry leaves out is taken from `shared`, so cannot differ.
    func conflict(with shared: AMQPConfiguration) -> String? {
        if let user, user != shared.user { return "user" }
        if let password, password != shared.password { return "password" }
        if let vhost, vhost != shared.vhost { return "vhost" }
        if let heartbeat, heartbeat != shared.heartbeat { return "heartbeat" }
        if let connectTimeout, connectTimeout != shared.connectTimeout { return "connection_timeout" }
        return nil
    }

    /// `text` with its password replaced by `***`, however malformed it is: everything from
    /// the colon after the user to the last `@` (a password may hold `/`, `?`, `#` and `@`
    /// unescaped); without an `@`, whatever follows a colon that is not a port (an entry
    /// whose `@host` was forgotten). Masking too much is allowed, showing a password is not.
    /// An entry without a scheme that holds an `@` may be the tail of a password with a raw
    /// comma (`amqp://u:12,34@host`): all before the `@` is masked.
    static func redact(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else {
            return text.lastIndex(of: "@").map { "***" + text[$0...] } ?? text
        }
        let rest = text[scheme.upperBound...]
        if let at = rest.lastIndex(of: "@") {
            guard let colon = rest[..<at].firstIndex(of: ":") else { return text }
            return String(text[...colon]) + "***" + String(text[at...])
        }
        guard let colon = rest.firstIndex(of: ":") else { return text }
        let end = rest[colon...].firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let port = rest[rest.index(after: colon)..<end]
        if port.allSatisfy(\.isNumber) { return text }
        return String(text[...colon]) + "***" + String(text[end...])
    }
}
