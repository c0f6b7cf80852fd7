import Broker
import Drills
import Foundation

/// The three-node RabbitMQ cluster of `scripts/cluster-rabbitmq.sh`: rabbit@iap-rmqN in the
/// network namespace iap-rmqN at 10.77.0.1N, AMQP on 5672, user guest, a heartbeat of 2 s so
/// that a node cut off is noticed in seconds. Needs root; for the alone pass only.
///
/// ```swift
/// try await RabbitMQCluster.run { cluster in
///     let connection = AMQPConnection(configuration: cluster.configuration, logger: logger)
///     try await cluster.kill(1)
/// }
/// ```
public struct RabbitMQCluster: Sendable {
    /// `IAP_AMQP_URL` for the three nodes, node 1 first.
    public let url: String
    public let configuration: AMQPConfiguration

    /// The cluster a suite under ``run(_:)`` shares, for its tests.
    @TaskLocal public static var current: RabbitMQCluster?

    /// Why the cluster cannot be built on this machine; nil when it can (root, `ip netns`,
    /// RabbitMQ installed).
    public static let unavailableReason: String? = {
        guard geteuid() == 0 else { return "not root" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/lib/rabbitmq/bin/rabbitmq-server") else {
            return "no /usr/lib/rabbitmq/bin/rabbitmq-server"
        }
        guard let (ended, _) = try? SpawnedProcess.run("/usr/bin/env", ["ip", "netns", "list"]) else {
            return "no ip (iproute2)"
        }
        return ended == .exited(0) ? nil : "`ip netns list` failed"
    }()

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/cluster-rabbitmq.sh")

    /// Builds the cluster, runs `body`, and tears everything down however `body` ends (a
    /// crash of the test process leaves it to the next `up`, which tears down first).
    public static func run<T>(_ body: (RabbitMQCluster) async throws -> T) async throws -> T {
        do {
            try await script(["up"], timeout: .seconds(900))
            let url = try await script(["urls"])
            var configuration = try AMQPConfiguration(url: url)
            configuration.reconnectDelay = .milliseconds(50) ... .seconds(1)
            let result = try await body(RabbitMQCluster(url: url, configuration: configuration))
            _ = try await script(["down"])
            return result
        } catch {
            _ = try? await script(["down"])
            throw error
        }
    }

    /// Node `n` (1-3) as the connections name it.
    public func node(_ n: Int) -> AMQPNode { configuration.nodes[n - 1] }

    /// `url` with the nodes in the order given (1-3), for a client that should start on one.
    public func url(order: [Int]) -> String {
        let entries = url.split(separator: ",")
        return order.map { String(entries[$0 - 1]) }.joined(separator: ",")
    }

    /// SIGKILL of node `n`'s Erlang VM.
    public func kill(_ n: Int) async throws { _ = try await Self.script(["kill", "\(n)"]) }
    /// Starts node `n` again and waits until it runs.
    public func start(_ n: Int) async throws { _ = try await Self.script(["start", "\(n)"], timeout: .seconds(300)) }
    public func stopApp(_ n: Int) async throws { _ = try await Self.script(["stop-app", "\(n)"]) }
    public func startApp(_ n: Int) async throws {
        _ = try await Self.script(["start-app", "\(n)"], timeout: .seconds(300))
    }
    /// Takes node `n`'s link down: nothing reaches it, it reaches nothing.
    public func cut(_ n: Int) async throws { _ = try await Self.script(["cut", "\(n)"]) }
    public func heal(_ n: Int) async throws { _ = try await Self.script(["heal", "\(n)"]) }

    /// `rabbitmqctl arguments…` on node `n`; its output.
    public func ctl(_ n: Int, _ arguments: String...) async throws -> String {
        try await Self.script(["ctl", "\(n)"] + arguments)
    }

    /// Waits until node `n` counts all three nodes running; false after `timeout`.
    public func awaitWhole(from n: Int, timeout: Duration = .seconds(300)) async -> Bool {
        await eventually(timeout: timeout, every: .seconds(2)) {
            let status = try? await ctl(n, "cluster_status", "--formatter", "json")
            let json = status.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            return (json?["running_nodes"] as? [String])?.count == 3
        }
    }

    /// A queue's members and leader, as node `n` sees them.
    public func members(of queue: String, from n: Int) async throws -> (members: [String], leader: String) {
        let output = try await ctl(n, "list_queues", "--formatter", "json", "name", "members", "leader")
        let rows = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        guard let row = rows.first(where: { $0["name"] as? String == queue }) else {
            throw ClusterError(arguments: ["list_queues"], status: 0, output: "no queue \(queue) in \(output)")
        }
        return (row["members"] as? [String] ?? [], row["leader"] as? String ?? "")
    }

    @discardableResult
    static func script(_ arguments: [String], timeout: Duration = .seconds(120)) async throws -> String {
        let outcome = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/timeout"), ["\(timeout.components.seconds)", script.path] + arguments)
        guard outcome.status == 0 else {
            throw ClusterError(arguments: arguments, status: outcome.status, output: outcome.output)
        }
        return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public struct ClusterError: Error, CustomStringConvertible {
        public let arguments: [String]
        public let status: Int32
        public let output: String
        public var description: String {
            "cluster-rabbitmq.sh \(arguments.joined(separator: " ")) exited \(status): \(output.suffix(1000))"
        }
    }
}
