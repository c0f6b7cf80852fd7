import Foundation

/// Where and how to connect, parsed from an `amqp://user:pass@host:port/vhost` URL.
///
/// ```swift
/// let config = try AMQPConfiguration(url: "amqp://guest:guest@127.0.0.1:5672/")
/// ```
public struct AMQPConfiguration: Hashable, Sendable {
    public static let defaultURL = "amqp://guest:guest@127.0.0.1:5672/"

    public var host: String
    public var port: Int
    public var user: String
    public var password: String
    public var vhost: String
    /// Seconds between heartbeats; a broker silent for two intervals is treated as gone.
    public var heartbeat: Int
    public var connectTimeout: Duration
    /// Limits how long a declaration or other round trip may take before the
    /// connection is considered broken.
    public var rpcTimeout: Duration
    /// Reconnect delays grow from the first to the last, doubling.
    public var reconnectDelay: ClosedRange<Duration>

    public init(
        host: String = "127.0.0.1", port: Int = 5672, user: String = "guest", password: String = "guest",
        vhost: String = "/", heartbeat: Int = 10, connectTimeout: Duration = .seconds(5),
        rpcTimeout: Duration = .seconds(15), reconnectDelay: ClosedRange<Duration> = .milliseconds(100) ... .seconds(5)
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.vhost = vhost
        self.heartbeat = heartbeat
        self.connectTimeout = connectTimeout
        self.rpcTimeout = rpcTimeout
        self.reconnectDelay = reconnectDelay
    }

    /// Parses an AMQP URI (the RabbitMQ URI spec): user, password and vhost are
    /// percent-decoded; an empty path is vhost `/`; `?heartbeat=N` sets the heartbeat.
    /// - Throws: ``AMQPURLError`` saying what is wrong, never echoing the password.
    public init(url: String) throws(AMQPURLError) {
        self.init()
        guard let components = URLComponents(string: url) else { throw AMQPURLError("is not a URL") }
        guard let scheme = components.scheme?.lowercased() else {
            throw AMQPURLError("has no scheme (expected amqp://)")
        }
        guard scheme == "amqp" else {
            throw AMQPURLError(
                scheme == "amqps" ? "amqps:// (TLS) is not supported yet" : "scheme must be amqp://, got \(scheme)://")
        }
        guard let host = components.percentEncodedHost, !host.isEmpty else { throw AMQPURLError("has no host") }
        self.host = host.removingPercentEncoding ?? host
        if let port = components.port {
            guard (1...65535).contains(port) else { throw AMQPURLError("port \(port) is out of range") }
            self.port = port
        }
        if let user = components.user { self.user = user }
        if let password = components.password { self.password = password }
        let path = components.percentEncodedPath
        if path.isEmpty || path == "/" {
            vhost = "/"
        } else {
            let encoded = String(path.dropFirst())
            guard !encoded.contains("/"), let decoded = encoded.removingPercentEncoding else {
                throw AMQPURLError("vhost must be one path segment (write / as %2F)")
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

    /// The URL without its password, for logs.
    public var redactedURL: String { "amqp://\(user):***@\(host):\(port)/\(vhost == "/" ? "" : vhost)" }
}

/// A malformed AMQP URL. The message never contains the password.
public struct AMQPURLError: Error, Hashable, Sendable, CustomStringConvertible {
    public let problem: String
    init(_ problem: String) { self.problem = problem }
    public var description: String { "AMQP URL \(problem)" }
}
