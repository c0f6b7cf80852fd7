import CoreMetrics
import Prometheus
import Synchronization

/// The Prometheus registry a process exports at `/metrics`.
public typealias MetricsRegistry = PrometheusCollectorRegistry

/// Sets up Prometheus as this process's metrics backend, once.
///
/// ```swift
/// let registry = MetricsBootstrap.prometheus()   // first thing in a command's run()
/// // ... serve registry at /metrics (see HealthEndpoints)
/// ```
public enum MetricsBootstrap {
    private static let shared = Mutex<PrometheusCollectorRegistry?>(nil)

    /// The process's registry; bootstraps swift-metrics with it on the first call.
    ///
    /// Why once: `MetricsSystem.bootstrap` may run only once per process, and every handle
    /// made before it records into nothing.
    public static func prometheus() -> PrometheusCollectorRegistry {
        shared.withLock { registry in
            if let registry { return registry }
            let created = PrometheusCollectorRegistry()
            var factory = PrometheusMetricsFactory(registry: created)
            factory.durationHistogramBuckets = [
                // Apple answers in 100 ms to a few s; the stub in 0 to 250 ms.
                MetricName.verifyDuration: [
                    .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                    .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
                    .seconds(10), .seconds(30),
                ],
                // Includes broker hops, batching and delay tiers (1 s to 1 h).
                MetricName.endToEndDuration: [
                    .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
                    .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(300),
                    .seconds(900), .seconds(3600),
                ],
                // An fsync is a millisecond or two; a busy SQLite writer or PostgreSQL waits longer.
                MetricName.databaseCommitDuration: [
                    .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                    .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
                    .milliseconds(2500), .seconds(5),
                ],
                // A first attempt takes milliseconds; retries back off for up to a day.
                MetricName.webhookDeliveryLag: [
                    .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
                    .seconds(5), .seconds(30), .seconds(60), .seconds(300), .seconds(900), .seconds(3600),
                    .seconds(21600), .seconds(86400),
                ],
            ]
            MetricsSystem.bootstrap(factory)
            registry = created
            return created
        }
    }
}
