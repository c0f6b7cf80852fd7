import ArgumentParser
import Drills
import Foundation
import Synchronization

/// `iap-lab chaos --cluster`'s options.
struct ChaosClusterOptions: ParsableArguments {
    @Flag(
        help: """
            Run every stage in a network namespace of its own and add the cluster's faults: the fulfiller cut off, \
            the notifier partitioned from the webhook receiver, and, when IAP_AMQP_URL or --database-url name the \
            clusters of scripts/cluster-rabbitmq.sh and scripts/cluster-postgres.sh, their nodes killed and \
            failed over. Needs root.
            """)
    var cluster = false
    @Option(help: "Seconds the fulfiller's namespace stays cut off (--cluster).") var partitionSeconds = 30.0
    @Option(help: "Seconds the notifier cannot reach the webhook receiver (--cluster).")
    var webhookPartitionSeconds = 30.0
    @Option(help: "Seconds a SIGKILLed RabbitMQ node stays down before it is started again (--cluster).")
    var nodeDownSeconds = 10.0
    @Option(help: "Seconds after a PostgreSQL failover before the old primary rejoins as the standby (--cluster).")
    var standbyRejoinSeconds = 20.0
    @Option(help: "scripts/cluster-rabbitmq.sh of the cluster in IAP_AMQP_URL; default: the repository's.")
    var rabbitmqClusterScript: String?
    @Option(help: "scripts/cluster-postgres.sh of the cluster in --database-url; default: the repository's.")
    var postgresClusterScript: String?

    func validate() throws {
        guard partitionSeconds >= 0, webhookPartitionSeconds >= 0, nodeDownSeconds >= 0, standbyRejoinSeconds >= 0
        else {
            throw ValidationError(
                "--partition-seconds, --webhook-partition-seconds, --node-down-seconds and --standby-rejoin-seconds must not be negative"
            )
        }
        if !cluster, rabbitmqClusterScript != nil || postgresClusterScript != nil {
            throw ValidationError("--rabbitmq-cluster-script and --postgres-cluster-script need --cluster")
        }
        if cluster, geteuid() != 0 { throw ValidationError("--cluster needs root: it creates network namespaces") }
    }
}

/// The cluster's own faults, when the run's broker and database are the clusters of the
/// scripts: which nodes, which scripts, and what is skipped and why.
struct ChaosClusterFaults {
    /// scripts/cluster-rabbitmq.sh and the node numbers of IAP_AMQP_URL, in its order.
    var broker: (script: ClusterScript, nodes: [Int])?
    var database: ClusterScript?
    /// Faults left out, with the reason: for the report.
    var skipped: [String] = []

    /// scripts/cluster-rabbitmq.sh puts node N at 10.77.0.1N, scripts/cluster-postgres.sh pg1
    /// and pg2 at 10.77.0.21 and .22.
    static let brokerNodes = ["10.77.0.11": 1, "10.77.0.12": 2, "10.77.0.13": 3]
    static let databaseHosts: Set = ["10.77.0.21", "10.77.0.22"]

    init(options: ChaosClusterOptions, amqpURL: String, databaseURL: String?) throws {
        let brokerHosts = ChaosCluster.hosts(amqpURL)
        if brokerHosts.count > 1 {
            let nodes = brokerHosts.compactMap { Self.brokerNodes[$0] }
            guard nodes.count == brokerHosts.count, nodes.count >= 2 else {
                throw ValidationError(
                    "--cluster: IAP_AMQP_URL lists nodes that are not scripts/cluster-rabbitmq.sh's (10.77.0.11-13): \(brokerHosts.joined(separator: ", "))"
                )
            }
            guard
                let script = try ClusterScript.locate(
                    "cluster-rabbitmq.sh", option: options.rabbitmqClusterScript, flag: "--rabbitmq-cluster-script")
            else {
                throw ValidationError(
                    "--cluster: IAP_AMQP_URL lists \(nodes.count) nodes, whose faults need scripts/cluster-rabbitmq.sh: not found; name it with --rabbitmq-cluster-script"
                )
            }
            broker = (script, nodes)
        } else {
            skipped.append("RabbitMQ node kill and app stop (IAP_AMQP_URL names one node; its app is stopped instead)")
        }
        let databaseHosts = databaseURL.map(ChaosCluster.hosts) ?? []
        if databaseHosts.count > 1 {
            guard Set(databaseHosts) == Self.databaseHosts else {
                throw ValidationError(
                    "--cluster: --database-url names servers that are not scripts/cluster-postgres.sh's (10.77.0.21, 10.77.0.22): \(databaseHosts.joined(separator: ", "))"
                )
            }
            guard
                let script = try ClusterScript.locate(
                    "cluster-postgres.sh", option: options.postgresClusterScript, flag: "--postgres-cluster-script")
            else {
                throw ValidationError(
                    "--cluster: --database-url names a primary and a standby, whose failover needs scripts/cluster-postgres.sh: not found; name it with --postgres-cluster-script"
                )
            }
            database = script
        } else {
            skipped.append(
                "PostgreSQL failover (\(databaseURL == nil ? "the database is SQLite" : "--database-url names one server"))"
            )
        }
    }

    /// Where the queues are listed at the end: a node that no fault stopped, or the local one.
    func brokerControl(rabbitmqNode: String?) -> BrokerControl {
        guard let broker else { return .local(node: rabbitmqNode) }
        return .cluster(broker.script, node: broker.nodes.last!)
    }

    /// The timed faults, as fractions of the load's seconds: the fulfiller cut off at 25 %,
    /// the notifier partitioned from the receiver at 50 %; the first broker node of the URL
    /// (the one stages reach first) SIGKILLed at 15 % and then the second's app stopped at
    /// 55 % (one chain: never two nodes down at once); the database failed over at 35 %.
    func chains(
        options: ChaosClusterOptions, loadSeconds: Double, brokerDownSeconds: Double, network: NetworkFaults,
        webhookPort: Int
    ) -> [ChaosFaultChain] {
        let fulfiller = ChaosCluster.namespaces["fulfiller"]!
        let notifier = ChaosCluster.namespaces["notifier"]!
        let cut = NetworkFaults.Fault.cut(fulfiller)
        let drop = NetworkFaults.Fault.drop(notifier, address: NetworkNamespace.hostAddress, port: webhookPort)
        var chains: [ChaosFaultChain] = [
            [
                ChaosFault(
                    name: "fulfiller cut off from the broker and the database (\(fulfiller.hostEnd) down)",
                    at: loadSeconds * 0.25, duration: options.partitionSeconds,
                    begin: { try await network.apply(cut) }, end: { try await network.heal(cut) },
                    recover: { _ = try? await network.heal(cut) })
            ],
            [
                ChaosFault(
                    name:
                        "notifier partitioned from the webhook receiver (DROP to \(NetworkNamespace.hostAddress):\(webhookPort))",
                    at: loadSeconds * 0.5, duration: options.webhookPartitionSeconds,
                    begin: { try await network.apply(drop) }, end: { try await network.heal(drop) },
                    recover: { _ = try? await network.heal(drop) })
            ],
        ]
        if let broker {
            let script = broker.script
            let killed = broker.nodes[0]
            let stopped = broker.nodes[1]
            chains.append([
                ChaosFault(
                    name: "RabbitMQ node \(killed) SIGKILLed (beam), then started", at: loadSeconds * 0.15,
                    duration: options.nodeDownSeconds,
                    begin: { try await script.run(["kill", "\(killed)"]) },
                    end: { try await script.run(["start", "\(killed)"]) },
                    recover: { _ = try? await script.run(["start", "\(killed)"]) }),
                ChaosFault(
                    name: "RabbitMQ node \(stopped) app stopped, then started", at: loadSeconds * 0.55,
                    duration: brokerDownSeconds,
                    begin: { try await script.run(["stop-app", "\(stopped)"]) },
                    end: { try await script.run(["start-app", "\(stopped)"]) },
                    recover: { _ = try? await script.run(["start-app", "\(stopped)"]) }),
            ])
        }
        if let script = database {
            let failedOver = Mutex<String?>(nil)
            chains.append([
                ChaosFault(
                    name: "PostgreSQL primary stopped hard and the standby promoted; the old primary rejoins after",
                    at: loadSeconds * 0.35, duration: options.standbyRejoinSeconds,
                    begin: {
                        let (primary, standby) = try Self.roles(try await script.run(["status"]))
                        failedOver.withLock { $0 = primary }
                        try await script.run(["kill", primary])
                        try await script.run(["promote", standby])
                    },
                    end: {
                        if let primary = failedOver.withLock({ $0 }) { try await script.run(["rejoin", primary]) }
                    })
            ])
        }
        return chains
    }

    /// The primary's and the standby's names from `cluster-postgres.sh status`
    /// (`pg1 10.77.0.21 primary` a line).
    static func roles(_ status: String) throws -> (primary: String, standby: String) {
        var byRole: [String: String] = [:]
        for line in status.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3 { byRole[String(fields[2])] = String(fields[0]) }
        }
        guard let primary = byRole["primary"], let standby = byRole["standby"] else {
            throw ValidationError("cluster-postgres.sh status shows no primary and standby:\n\(status)")
        }
        return (primary, standby)
    }
}
