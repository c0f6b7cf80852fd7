import CoreMetrics
import Synchronization

/// The `app` label of the counters an operator reads per app: receipts credited, webhooks
/// delivered and failed.
///
/// Its values are the apps file's ids (`default` with the single-app settings), set once at
/// start by ``useApps(_:)``; any other id counts as `other`, so that a row written by hand
/// cannot add a series: the label's cardinality is bounded by the apps file.
extension PipelineMetrics {
    /// The `app` label with the single-app settings.
    public static let singleAppLabel = "default"
    /// The label of an app the apps file does not list.
    public static let otherAppLabel = "other"

    /// Sets the `app` label's values: the apps file's ids, the default app first; none for
    /// the single-app settings. Call before ``prepare(_:)``.
    public static func useApps(_ ids: [String]) {
        appLabels.withLock { $0 = ids.isEmpty ? [singleAppLabel] : ids }
    }

    /// The label of an app: nil names the default app (its bare account ids).
    public static func appLabel(_ app: String?) -> String {
        appLabels.withLock { labels in
            guard let app else { return labels[0] }
            return labels.contains(app) ? app : otherAppLabel
        }
    }

    /// Receipts and notifications credited for `app` (nil: the default app).
    public static func credited(app: String?) -> Counter {
        counter(MetricName.receiptsCredited, app: app)
    }

    /// Webhooks of `app` the backend took (nil: the default app).
    public static func webhooksDelivered(app: String?) -> Counter {
        counter(MetricName.webhooksDelivered, app: app)
    }

    /// Webhook attempts of `app` that failed: `final` when no attempt is left.
    public static func webhooksFailed(app: String?, final: Bool) -> Counter {
        counter(MetricName.webhooksFailed, app: app, [("final", final ? "true" : "false")])
    }

    /// One handle per metric, labels and app, made once: the stages count every message, so
    /// finding a handle builds no string (its key is the parts themselves).
    static func counter(_ name: String, app: String?, _ labels: [(String, String)] = []) -> Counter {
        let app = appLabel(app)
        let key = CounterKey(name: name, app: app, labels: labels.flatMap { [$0.0, $0.1] })
        if let counter = countersByApp.withLock({ $0[key] }) { return counter }
        let counter = Counter(label: name, dimensions: [("app", app)] + labels)
        return countersByApp.withLock { known in
            if let first = known[key] { return first }
            known[key] = counter
            return counter
        }
    }

    static let appLabels = Mutex<[String]>([singleAppLabel])
    private static let countersByApp = Mutex<[CounterKey: Counter]>([:])

    private struct CounterKey: Hashable {
        let name: String
        let app: String
        let labels: [String]
    }
}
