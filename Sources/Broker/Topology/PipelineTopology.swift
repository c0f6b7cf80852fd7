import PipelineCore

/// The pipeline's queues and exchanges, all named from one prefix so that two pipelines
/// can share a broker.
///
/// ```
/// {p}.work (direct) ──validate──▶ {p}.validate (quorum) ──▶ validators
///                   ──fulfil────▶ {p}.fulfil   (quorum) ──▶ fulfiller
/// "" ──{p}.validate.retry.10s──▶ retry tier (quorum, TTL) ──expires──▶ {p}.work / validate
/// {p}.dead (fanout) ──▶ {p}.dead ──▶ fulfiller: archived in SQLite for operators' review
/// ```
/// Work queues dead-letter at least once into `{p}.dead` when a message is rejected
/// without requeue or is delivered more than ``deliveryLimit`` times (a poison message
/// that crashes its consumer). Every queue is a quorum queue of ``quorumGroupSize``
/// replicas, fewer on a cluster of fewer nodes.
public struct PipelineTopology: Hashable, Sendable {
    public static let validateKey = "validate"
    public static let fulfilKey = "fulfil"
    /// The delays of the retry tiers: the n-th retry waits `retryDelays[min(n, count) - 1]`.
    public static let defaultRetryDelays: [Duration] = [
        .seconds(1), .seconds(10), .seconds(60), .seconds(600), .seconds(3600),
    ]

    public let prefix: String
    public let retryDelays: [Duration]
    /// Deliveries after which a quorum queue dead-letters a message on its own.
    public let deliveryLimit: Int
    /// How many nodes hold a replica of each queue when the broker creates it
    /// (`x-quorum-initial-group-size`); a cluster of fewer nodes puts one on each. Three
    /// survive the loss of one node, five of two.
    public let quorumGroupSize: Int
    public static let defaultQuorumGroupSize = 3

    public init(
        prefix: String = "iap", retryDelays: [Duration] = defaultRetryDelays, deliveryLimit: Int = 20,
        quorumGroupSize: Int = defaultQuorumGroupSize
    ) {
        precondition(!retryDelays.isEmpty, "at least one retry tier")
        precondition(quorumGroupSize > 0, "at least one replica")
        self.prefix = prefix
        self.retryDelays = retryDelays
        self.deliveryLimit = deliveryLimit
        self.quorumGroupSize = quorumGroupSize
    }

    public var workExchange: String { "\(prefix).work" }
    public var deadExchange: String { "\(prefix).dead" }
    public var validateQueue: String { "\(prefix).validate" }
    public var fulfilQueue: String { "\(prefix).fulfil" }
    /// The archive's inbox: the fulfiller stores each dead letter in SQLite (where
    /// operators review it) and marks its receipt dead, then acks it.
    public var deadQueue: String { "\(prefix).dead" }

    /// The retry tier to use after `attempts` failed attempts (1-based), and its delay.
    public func retryTier(afterAttempt attempts: Int) -> (queue: String, delay: Duration) {
        let index = min(max(attempts, 1), retryDelays.count) - 1
        return (retryQueueName(retryDelays[index]), retryDelays[index])
    }

    /// The longest delay tier no longer than `delay` (the shortest if none is), for a message
    /// that must not come back much later than `delay`: one over a call budget, which asks
    /// again then and is booked or told to wait a little longer.
    public func delayTier(atMost delay: Duration) -> String {
        retryQueueName(retryDelays.filter { $0 <= delay }.max() ?? retryDelays.min() ?? retryDelays[0])
    }

    /// Every queue name the pipeline declares.
    public var allQueues: [String] { topology.queues.map(\.name) }

    public var topology: Topology {
        let quorum: [String: AMQPValue] = [
            "x-queue-type": "quorum", "x-quorum-initial-group-size": .int(Int64(quorumGroupSize)),
        ]
        let durableWork = quorum.merging([
            "x-delivery-limit": .int(Int64(deliveryLimit)),
            "x-dead-letter-exchange": .string(deadExchange),
            "x-dead-letter-strategy": "at-least-once",
            "x-overflow": "reject-publish",
        ]) { $1 }
        var queues = [
            QueueSpec(name: validateQueue, arguments: durableWork),
            QueueSpec(name: fulfilQueue, arguments: durableWork),
            QueueSpec(name: deadQueue, arguments: quorum),
        ]
        for delay in retryDelays {
            queues.append(
                QueueSpec(
                    name: retryQueueName(delay),
                    arguments: quorum.merging([
                        "x-message-ttl": .int(delay.milliseconds),
                        "x-dead-letter-exchange": .string(workExchange),
                        "x-dead-letter-routing-key": .string(Self.validateKey),
                        "x-dead-letter-strategy": "at-least-once",
                        "x-overflow": "reject-publish",
                    ]) { $1 }))
        }
        return Topology(
            exchanges: [
                ExchangeSpec(name: workExchange, type: "direct"),
                ExchangeSpec(name: deadExchange, type: "fanout"),
            ],
            queues: queues,
            bindings: [
                BindingSpec(queue: validateQueue, exchange: workExchange, routingKey: Self.validateKey),
                BindingSpec(queue: fulfilQueue, exchange: workExchange, routingKey: Self.fulfilKey),
                BindingSpec(queue: deadQueue, exchange: deadExchange, routingKey: ""),
            ])
    }

    private func retryQueueName(_ delay: Duration) -> String {
        let ms = delay.milliseconds
        let seconds = ms / 1000
        let label =
            ms % 1000 != 0
            ? "\(ms)ms"
            : seconds % 3600 == 0 ? "\(seconds / 3600)h" : seconds % 60 == 0 ? "\(seconds / 60)m" : "\(seconds)s"
        return "\(validateQueue).retry.\(label)"
    }
}
