import PipelineTesting
import Prometheus
import Testing

/// The strict exposition reader the end-to-end metrics tests rely on: it must take what
/// swift-prometheus writes and refuse what Prometheus would refuse.
@Suite struct PrometheusTextTests {
    @Test func readsCountersGaugesAndHistogramsAsTheRegistryWritesThem() throws {
        // Given a registry of its own (the process-wide one belongs to the `iap` commands)
        let registry = PrometheusCollectorRegistry()
        // No help text, so no HELP lines: the pipeline's metrics, made through swift-metrics, have none.
        let received = MetricNameDescriptor(metricName: "iap_receipts_received", unitName: "total", helpText: "")
        registry.makeCounter(descriptor: received, labels: [("kind", "legacy")]).increment(by: Int64(3))
        registry.makeCounter(descriptor: received, labels: [("kind", "storekit2")]).increment()
        registry.makeGauge(
            descriptor: MetricNameDescriptor(metricName: "iap_queue_depth", unitName: "", helpText: ""),
            labels: [("queue", "iap.validate")]
        ).set(Int64(42))
        let histogram = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(metricName: "iap_verify_duration", unitName: "seconds", helpText: ""),
            labels: [("outcome", "valid")], buckets: [.milliseconds(100), .seconds(1)])
        histogram.record(.milliseconds(50))
        histogram.record(.milliseconds(500))

        // When its output is read
        let text = try PrometheusText(parsing: registry.emitToString())

        // Then every value is there, typed
        #expect(text.value("iap_receipts_received_total", ["kind": "legacy"]) == 3)
        #expect(text.value("iap_receipts_received_total", ["kind": "storekit2"]) == 1)
        #expect(text.value("iap_queue_depth", ["queue": "iap.validate"]) == 42)
        #expect(text.value("iap_verify_duration_seconds_count", ["outcome": "valid"]) == 2)
        #expect(text.value("iap_verify_duration_seconds_bucket", ["outcome": "valid", "le": "0.1"]) == 1)
        #expect(text.families["iap_verify_duration_seconds"]?.type == "histogram")
        #expect(text.families["iap_queue_depth"]?.type == "gauge")
    }

    @Test(arguments: [
        "iap_x{kind=\"a\" 1",  // unterminated label set
        "iap_x{kind=a} 1",  // unquoted label value
        "iap_x 1 2 3",  // too many fields
        "iap_x one",  // not a number
        "9iap 1",  // bad metric name
        "# TYPE iap_x counter\niap_x -1",  // a negative counter
        "# TYPE iap_x counter\n# TYPE iap_x gauge\niap_x 1",  // two types
        "iap_a 1\niap_b 1\niap_a 2",  // a family split in two
        // not cumulative
        "# TYPE iap_h histogram\niap_h_bucket{le=\"1\"} 2\niap_h_bucket{le=\"+Inf\"} 1\niap_h_count 1",
        "# TYPE iap_h histogram\niap_h_bucket{le=\"1\"} 1\niap_h_count 1",  // no +Inf bucket
    ])
    func refusesWhatPrometheusWouldRefuse(_ text: String) {
        #expect(throws: PrometheusText.ParseError.self) { try PrometheusText(parsing: text) }
    }
}
