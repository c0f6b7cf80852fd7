import CoreMetrics
import Synchronization

/// A counter handle, for stages that pick one (they need not import swift-metrics).
public typealias MetricCounter = CoreMetrics.Counter

/// The metric handles the stages record into.
///
/// Each handle is created on first use, through whatever `MetricsSystem` factory is set
/// then: the `iap` commands bootstrap Prometheus (``MetricsBootstrap``) before they build
/// a stage; in-process tests that bootstrap nothing record into swift-metrics' no-op
/// handlers.
public enum PipelineMetrics {
    /// Receipts or notifications the intake took, by their kind as rows keep it (`legacy`,
    /// `storekit2`, `google_play`, `notification`, `huawei.purchase`): one handle a kind,
    /// made once (the intake counts every request).
    public static func received(kind: String) -> Counter {
        if let counter = receivedByKind.withLock({ $0[kind] }) { return counter }
        let counter = Counter(label: MetricName.receiptsReceived, dimensions: [("kind", kind)])
        return receivedByKind.withLock { known in
            if let first = known[kind] { return first }
            known[kind] = counter
            return counter
        }
    }

    private static let receivedByKind = Mutex<[String: Counter]>([:])

    /// The kinds `/metrics` shows at 0 from the start: Apple's and Google Play's, which most
    /// deployments take.
    static let preparedKinds = ["legacy", "storekit2", "google_play", "notification"]

    public static let validated = Counter(label: MetricName.receiptsValidated)
    public static let rejected = Counter(label: MetricName.receiptsRejected)
    public static let retried = Counter(label: MetricName.receiptsRetried)
    public static let deferred = Counter(label: MetricName.receiptsDeferred)
    public static let deadLetteredByValidator = Counter(
        label: MetricName.receiptsDeadLettered, dimensions: [("source", "validator")])
    public static let deadLetteredByBroker = Counter(
        label: MetricName.receiptsDeadLettered, dimensions: [("source", "broker")])
    /// Credits of the default app (the fulfiller counts each under its account's app with
    /// ``credited(app:)``).
    public static var credited: Counter { credited(app: nil) }

    /// Which stages a process runs, for ``prepare(_:)``.
    public enum Role: Sendable {
        case intake, validator, fulfiller, notifier
    }

    /// Creates the counters of `roles` at 0, so that `/metrics` shows them from the start
    /// and `rate()` has a first sample before the first receipt.
    public static func prepare(_ roles: [Role]) {
        for role in roles {
            switch role {
            case .intake:
                for kind in preparedKinds { _ = received(kind: kind) }
                _ = [connectionsRefused(.perAddress), connectionsRefused(.total)]
                connectionsOpen.set(0)
            case .validator:
                _ = [validated, rejected, retried, deferred, deadLetteredByValidator]
            case .fulfiller:
                _ = [deadLetteredByBroker]
                for app in appLabels.withLock({ $0 }) { _ = credited(app: app) }
            case .notifier:
                for app in appLabels.withLock({ $0 }) {
                    _ = [webhooksDelivered(app: app), webhooksFailed(app: app, final: false)]
                    _ = webhooksFailed(app: app, final: true)
                }
            }
        }
    }

    /// The verify latency for one store (`apple`, `google_play`) and outcome label (`valid`,
    /// `notification`, `rejected`, `transient`, `deferred`).
    public static func verifyDuration(store: String, outcome: String) -> Timer {
        Timer(label: MetricName.verifyDuration, dimensions: [("store", store), ("outcome", outcome)])
    }

    public static let endToEndDuration = Timer(label: MetricName.endToEndDuration)

    /// A receipt's wait for the intake's group commit; one fulfiller batch's transaction.
    public static let intakeCommitDuration = Timer(
        label: MetricName.databaseCommitDuration, dimensions: [("stage", "intake")])
    public static let fulfillerCommitDuration = Timer(
        label: MetricName.databaseCommitDuration, dimensions: [("stage", "fulfiller")])

    public static let webhookDeliveryLag = Timer(label: MetricName.webhookDeliveryLag)

    /// The depth gauge of one queue.
    public static func queueDepth(_ queue: String) -> Gauge {
        Gauge(label: MetricName.queueDepth, dimensions: [("queue", queue)])
    }

    public static func reconcileMissing(_ environment: String) -> Counter {
        Counter(label: MetricName.reconcileMissing, dimensions: [("environment", environment)])
    }

    public static func consumptionAnswers(_ status: String) -> Counter {
        Counter(label: MetricName.consumptionAnswers, dimensions: [("status", status)])
    }

    public static func reconcileRuns(_ result: String) -> Counter {
        Counter(label: MetricName.reconcileRuns, dimensions: [("result", result)])
    }

    public static func queueConsumers(_ queue: String) -> Gauge {
        Gauge(label: MetricName.queueConsumers, dimensions: [("queue", queue)])
    }
}

extension Timer {
    /// Records a `Duration` (swift-metrics counts nanoseconds).
    public func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
    }
}
