import CoreMetrics
import Logging
import Synchronization

extension PipelineMetrics {
    /// A receipt, order or notification the intake answered 503 because the database did
    /// not take it: `disk_full` or `unavailable`.
    public static func intakeUnavailable(full: Bool) -> Counter {
        full ? intakeFull : intakeDown
    }

    private static let intakeFull = Counter(label: MetricName.intakeUnavailable, dimensions: [("reason", "disk_full")])
    private static let intakeDown = Counter(
        label: MetricName.intakeUnavailable, dimensions: [("reason", "unavailable")])

    /// 1 while the broker blocks the relay's publishing (a resource alarm): committed receipts
    /// wait in the database, unpublished, until it clears.
    public static func relayBlocked() -> Gauge {
        Gauge(label: MetricName.relayBlocked)
    }

    /// 1 while `stage` waits for a database that cannot take its writes (``StagePause``), else 0.
    public static func stagePaused(_ stage: String) -> Gauge {
        Gauge(label: MetricName.stagePaused, dimensions: [("stage", stage)])
    }
}

/// A stage's wait on a database that cannot take its work (a full disk, a server down or
/// unreachable): said once when it begins and once when it ends, in the log and as
/// `iap_stage_paused{stage}`, instead of an error line on every retry. The stage keeps what
/// it holds and tries again; nothing is acknowledged meanwhile.
public final class StagePause: Sendable {
    private let stage: String
    private let logger: Logger
    private let gauge: Gauge
    private let since = Mutex<ContinuousClock.Instant?>(nil)

    public init(stage: String, logger: Logger) {
        self.stage = stage
        self.logger = logger
        self.gauge = PipelineMetrics.stagePaused(stage)
        gauge.record(0)
    }

    /// Whether the stage waits now.
    public var isPaused: Bool { since.withLock { $0 != nil } }

    /// The work failed for the database's sake (`reason`: `disk_full`, `unavailable`,
    /// `unreachable`): the first failure pauses the stage, later ones are debug lines.
    public func failed(reason: String, error: any Error) {
        let began = since.withLock { since -> Bool in
            guard since == nil else { return false }
            since = .now
            return true
        }
        if began {
            gauge.record(1)
            logger.error(
                "\(stage) paused: the database cannot take its work; retrying until it can",
                metadata: ["reason": "\(reason)", "error": "\(error)"])
        } else {
            logger.debug("\(stage) still paused", metadata: ["reason": "\(reason)", "error": "\(error)"])
        }
    }

    /// The work went through: a paused stage resumes, and says after how long.
    public func succeeded() {
        guard
            let began = since.withLock({ since -> ContinuousClock.Instant? in
                defer { since = nil }
                return since
            })
        else { return }
        gauge.record(0)
        let waited = ContinuousClock.now - began
        logger.notice(
            "\(stage) resumed: the database takes its work again",
            metadata: [
                "paused_seconds": "\(Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18)"
            ])
    }
}
