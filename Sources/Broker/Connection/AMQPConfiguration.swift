import Foundation
import PipelineCore

/// Where and how to connect, parsed from an `amqp://user:pass@host:port/vhost` URL, or from a
/// comma-separated list of them naming the nodes of one cluster.
///
/// ```swift
/// let config = try AMQPConfiguration(url: "amqp://guest:guest@127.0.0.1:5672/")
/// let cluster = try AMQPConfiguration(url: "amqp://u:p@10.0.0.11:5672/,amqp://u:p@10.0.0.12:5672/")
/// ```
public struct AMQPConfiguration: Hashable, Sendable {
    public static let defaultURL = "amqp://guest:guest@127.0.0.1:5672/"

    /// The broker's nodes, at least one. A connection uses one at a time and moves to the
    /// next in the list when its node goes (see ``NodeRotation``).
    public var nodes: [AMQPNode]
    public var user: String
    public var password: String
    public var vhost: String
    /// Seconds between heartbeats; a broker silent for two intervals is treated as gone.
    public var heartbeat: Int
    /// How soon the kernel gives up a connection whose node went silent (TCP user timeout and
    /// keepalives, see ``DeadPeer``): sooner than two heartbeats, and also while a publish
    /// waits for room in a send buffer nobody drains. 10 s.
    public var deadPeer: DeadPeer
    public var connectTimeout: Duration
    /// Limits how long a declaration or other round trip may take, and how long awaited
    /// publisher confirms may go without one arriving, before the connection is considered
    /// broken.
    public var rpcTimeout: Duration
    /// Reconnect delays grow from the first to the last, doubling, after every node of the
    /// list has failed in turn.
    public var reconnectDelay: ClosedRange<Duration>
    /// How long single acks may wait to go out together. An ack late by this much costs
    /// nothing but a prefetch slot held a little longer (and, should the connection drop
    /// meanwhile, a redelivery, which every consumer here tolerates); a settlement other than a
    /// single ack, and a close, send the waiting ones first. 50 ms: at 100 deliveries a second
    /// five acks share a frame and a Raft command (BENCHMARKS.md, issue 29, seventh session).
    public var ackLinger: Duration

    public init(
        host: String = "127.0.0.1", port: Int = 5672, user: String = "guest", password: String = "guest",
        vhost: String = "/", heartbeat: Int = 10, connectTimeout: Duration = .seconds(5),
        rpcTimeout: Duration = .seconds(15), reconnectDelay: ClosedRange<Duration> = .milliseconds(100) ... .seconds(5),
        ackLinger: Duration = .milliseconds(50), deadPeer: DeadPeer = DeadPeer(timeout: .seconds(10))
    ) {
        self.nodes = [AMQPNode(host: host, port: port)]
        self.user = user
        self.password = password
        self.vhost = vhost
        self.heartbeat = heartbeat
        self.connectTimeout = connectTimeout
        self.rpcTimeout = rpcTimeout
        self.reconnectDelay = reconnectDelay
        self.ackLinger = ackLinger
        self.deadPeer = deadPeer
    }

    /// Parses an AMQP URI (the RabbitMQ URI spec), or several separated by commas: user,
    /// password and vhost are percent-decoded; an empty path is vhost `/`; `?heartbeat=N` sets
    /// the heartbeat, `?connection_timeout=MS` the connect timeout. The entries of a list are
    /// nodes of one cluster, which share users and vhosts: entry 1 says everything, a later
    /// entry may say only its host and port (`amqp://10.0.0.12:5672`) and takes the rest from
    /// entry 1, and what it does say must agree with entry 1. A comma in a password is `%2C`.
    /// - Throws: ``AMQPURLError`` naming the entry at fault, never its password.
    public init(url: String) throws(AMQPURLError) {
        self.init()
        let entries = url.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        nodes = []
        for (index, entry) in entries.enumerated() {
            func fail(_ problem: String) -> AMQPURLError {
                AMQPURLError(problem, entry: AMQPURL.redact(entry), position: index + 1, count: entries.count)
            }
            let next: AMQPURL
            do {
                next = try AMQPURL(entry)
            } catch {
                throw fail(error.problem)
            }
            if index == 0 {
                user = next.user ?? user
                password = next.password ?? password
                vhost = next.vhost ?? vhost
                heartbeat = next.heartbeat ?? heartbeat
                connectTimeout = next.connectTimeout ?? connectTimeout
            } else if let conflict = next.conflict(with: self) {
                throw fail(
                    "its \(conflict) differs from entry 1's (the nodes of one cluster share it; leave it out to take entry 1's)"
                )
            }
            if let earlier = nodes.firstIndex(of: next.node) {
                throw fail("it names \(next.node) again, as entry \(earlier + 1) does")
            }
            nodes.append(next.node)
        }
    }

    /// The URL (a list for several nodes) without its password, for logs.
    public var redactedURL: String {
        nodes.map { "amqp://\(user):***@\($0)/\(vhost == "/" ? "" : vhost)" }.joined(separator: ",")
    }
}

/// One node of the broker: where its AMQP listener is.
public struct AMQPNode: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int = 5672) {
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }
}

/// A malformed AMQP URL, or a malformed entry of a list. The message names the entry with its
/// password masked, and never contains the password.
public struct AMQPURLError: Error, Hashable, Sendable, CustomStringConvertible {
    public let problem: String
    /// The entry as given, its password replaced by `***`.
    public let entry: String
    /// The entry's place in the list (1-based), and how many entries the list has.
    public let position: Int
    public let count: Int

    init(_ problem: String, entry: String = "", position: Int = 1, count: Int = 1) {
        self.problem = problem
        self.entry = entry
        self.position = position
        self.count = count
    }

    public var description: String {
        count > 1 ? "entry \(position) of \(count), '\(entry)': \(problem)" : "'\(entry)': \(problem)"
    }
}
