import ArgumentParser
import Drills
import Foundation

/// The test hosts of `iap-lab chaos --cluster`: every stage in a network namespace of its own on
/// bridge `iap-br0` (addresses 10.77.0.31-35; the RabbitMQ cluster of scripts/cluster-rabbitmq.sh
/// holds .11-.13, the PostgreSQL pair of scripts/cluster-postgres.sh .21-.22), and relays from
/// the bridge to a broker or database that listens on loopback only.
struct ChaosCluster {
    /// Where each stage runs. The stub store, the webhook receiver and the load stay on the
    /// host, at ``NetworkNamespace/hostAddress``.
    static let namespaces: [String: NetworkNamespace] = [
        "intake": .init(name: "chaos-intake", address: "10.77.0.31"),
        "validator-1": .init(name: "chaos-valid1", address: "10.77.0.32"),
        "validator-2": .init(name: "chaos-valid2", address: "10.77.0.33"),
        "fulfiller": .init(name: "chaos-fulfil", address: "10.77.0.34"),
        "notifier": .init(name: "chaos-notify", address: "10.77.0.35"),
    ]

    let network: StageNetwork
    private let relays: [LoopbackRelay]

    /// Brings the namespaces up and relays every loopback host of `amqpURL` and `databaseURL`.
    static func start(amqpURL: String, databaseURL: String?) async throws -> ChaosCluster {
        var relays: [LoopbackRelay] = []
        do {
            for namespace in namespaces.values.sorted(by: { $0.address < $1.address }) { try await namespace.up() }
            var relayed: [String: String] = [:]
            let relay = { (port: Int) throws -> Int in
                if let open = relays.first(where: { $0.target == port }) { return open.port }
                relays.append(try LoopbackRelay(target: port))
                return relays.last!.port
            }
            relayed["IAP_AMQP_URL"] = try Self.relayed(amqpURL, defaultPort: 5672, through: relay)
            if let databaseURL {
                relayed["IAP_DATABASE_URL"] = try Self.relayed(databaseURL, defaultPort: 5432, through: relay)
            }
            return ChaosCluster(
                network: StageNetwork(
                    hostAddress: NetworkNamespace.hostAddress, namespaces: namespaces, namespacedEnvironment: relayed),
                relays: relays)
        } catch {
            for relay in relays { relay.close() }
            await removeNamespaces()
            throw error
        }
    }

    /// Relays closed, namespaces gone (with whatever still runs in them, and their iptables rules).
    func stop() async {
        for relay in relays { relay.close() }
        await Self.removeNamespaces()
    }

    static func removeNamespaces() async {
        for namespace in namespaces.values { await namespace.down() }
    }

    /// For a test's cleanup, which cannot await: what a killed run left behind.
    static func removeLeftovers() {
        for namespace in namespaces.values { namespace.downBlocking() }
    }

    /// `url` with each loopback host (`127.0.0.1`, `localhost`) replaced by the bridge address
    /// and the port of a relay to it. Comma-separated lists (several broker URLs, libpq's host
    /// list) are rewritten entry by entry; other hosts (a cluster's nodes) are kept.
    static func relayed(_ url: String, defaultPort: Int, through relay: (Int) throws -> Int) rethrows -> String {
        var result = ""
        var rest = Substring(url)
        let loopback = /([@\/,])(?:127\.0\.0\.1|localhost)(?::(\d+))?(?=[\/,?]|$)/
        while let match = rest.firstMatch(of: loopback) {
            result += rest[..<match.range.lowerBound]
            let port = match.output.2.flatMap { Int($0) } ?? defaultPort
            result += "\(match.output.1)\(NetworkNamespace.hostAddress):\(try relay(port))"
            rest = rest[match.range.upperBound...]
        }
        return result + rest
    }

    /// The hosts of a URL list: `amqp://u:p@10.77.0.11:5672/,amqp://…` or libpq's
    /// `postgres://u:p@10.77.0.21:5432,10.77.0.22:5432/db`.
    static func hosts(_ url: String) -> [String] {
        url.split(separator: ",").compactMap { entry -> String? in
            var authority = entry
            if let scheme = authority.range(of: "://") { authority = authority[scheme.upperBound...] }
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            let host = authority.prefix { $0 != ":" && $0 != "/" && $0 != "?" }
            return host.isEmpty ? nil : String(host)
        }
    }
}

/// One of the cluster scripts (scripts/cluster-rabbitmq.sh, scripts/cluster-postgres.sh), run
/// as the operator would; found beside the repository the binary was built in, or named by an option.
struct ClusterScript: Sendable, CustomStringConvertible {
    let path: String
    var description: String { path }

    /// `option`'s path if given (it must exist), else `scripts/<name>` in the current directory
    /// or a directory above this binary (`.build/debug/iap` of a checkout); nil when neither has it.
    static func locate(_ name: String, option: String?, flag: String) throws -> ClusterScript? {
        if let option {
            guard FileManager.default.isExecutableFile(atPath: option) else {
                throw ValidationError("\(flag) \(option): no such executable file")
            }
            return ClusterScript(path: option)
        }
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var directories = [FileManager.default.currentDirectoryPath]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while directory.path != "/" {
            directories.append(directory.path)
            directory.deleteLastPathComponent()
        }
        return directories.map { "\($0)/scripts/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            .map(ClusterScript.init)
    }

    /// Runs the script with `arguments`; its output, or a throw with its last words.
    @discardableResult
    func run(_ arguments: [String]) async throws -> String {
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: path), arguments)
        guard outcome.status == 0 else {
            throw ValidationError(
                "\(path) \(arguments.joined(separator: " ")) exited \(outcome.status): \(outcome.output.suffix(500))")
        }
        return outcome.output
    }
}

/// Where the run lists its queues (and, on a single node, stops the app): rabbitmqctl on a
/// local node, or one node of scripts/cluster-rabbitmq.sh's cluster.
enum BrokerControl: Sendable {
    case local(node: String?)
    case cluster(ClusterScript, node: Int)
    /// The node of a power-cut run (`--power`).
    case own(PowerCutBroker)

    func listQueues() async throws -> String {
        let query = ["list_queues", "--no-table-headers", "name", "messages"]
        switch self {
        case .local(let node): return try await Rabbitmqctl.output((node.map { ["-n", $0] } ?? []) + ["-q"] + query)
        case .cluster(let script, let node): return try await script.run(["ctl", "\(node)"] + query)
        case .own(let broker): return try await broker.rabbitmqctl(["-q"] + query)
        }
    }
}
