import Broker
import Logging
import ServiceLifecycle

/// Reads the depth of each pipeline queue every few seconds into ``MetricName/queueDepth``,
/// so that `/metrics` shows a backlog (and an autoscaler can act on it) without the
/// management plugin.
///
/// Uses the process's own connection: one `queue.declare` (passive) per queue per poll on
/// the control channel. While the broker is away it skips the poll and keeps the last values.
public struct QueueDepthPoller: Service {
    let connection: AMQPConnection
    let queues: [String]
    let interval: Duration
    let logger: Logger

    public init(connection: AMQPConnection, queues: [String], interval: Duration = .seconds(5), logger: Logger) {
        self.connection = connection
        self.queues = queues
        self.interval = interval
        self.logger = logger
    }

    /// The work queues, their delay tiers and the dead-letter queues of `topology`.
    public init(
        connection: AMQPConnection, topology: PipelineTopology, interval: Duration = .seconds(5), logger: Logger
    ) {
        self.init(
            connection: connection, queues: topology.topology.queues.map(\.name), interval: interval, logger: logger)
    }

    public func run() async throws {
        let gauges = queues.map {
            (queue: $0, depth: PipelineMetrics.queueDepth($0), consumers: PipelineMetrics.queueConsumers($0))
        }
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            if connection.isConnected {
                for gauge in gauges {
                    do {
                        let status = try await connection.queueStatus(gauge.queue)
                        gauge.depth.record(status.messages)
                        gauge.consumers.record(status.consumers)
                    } catch {
                        logger.debug(
                            "cannot read queue depth", metadata: ["queue": "\(gauge.queue)", "error": "\(error)"])
                    }
                }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
