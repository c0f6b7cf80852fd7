import Logging
import PipelineTesting
import Prometheus
import Testing

@testable import Observability

/// `/metrics` behind `IAP_METRICS_TOKEN`, on a real admin server.
@Suite struct MetricsTokenTests {
    static let token = "metrics-token-0123456789"

    func get(_ port: Int, _ path: String, authorization: String?) async throws -> RawHTTPConnection.Response? {
        let connection = try await RawHTTPConnection.connect(port: port)
        var text = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let authorization { text += "Authorization: \(authorization)\r\n" }
        try await connection.send(text + "\r\n")
        let response = await connection.response()
        await connection.close()
        return response
    }

    @Test func metricsAskForTheTokenWhileTheProbesStayOpen() async throws {
        let registry = PrometheusCollectorRegistry()
        registry.makeCounter(descriptor: MetricNameDescriptor(metricName: "doors", unitName: "total", helpText: ""))
            .increment()
        let endpoints = HealthEndpoints(registry: registry, checks: [], metricsToken: Self.token)
        try await withRunningServer({ onPort in
            AdminServer(
                host: "127.0.0.1", port: 0, endpoints: endpoints, logger: Logger(label: "test"), onServerRunning: onPort
            )
        }) { port in
            // Without the token, or with another, 401 in the JSON shape and no metric
            for authorization in [nil, "Bearer wrong-token-0123456789", "Basic \(Self.token)"] {
                let refused = try #require(try await get(port, "/metrics", authorization: authorization))
                #expect(refused.status == 401)
                #expect(refused.body.contains("\"unauthorized\""))
                #expect(!refused.body.contains("doors_total"))
            }
            // With it, the metrics
            let metrics = try #require(try await get(port, "/metrics", authorization: "Bearer \(Self.token)"))
            #expect(metrics.status == 200)
            #expect(metrics.body.contains("doors_total 1"))
            #expect(!metrics.body.contains(Self.token))
            // The probes ask for nothing
            #expect(try await get(port, "/healthz", authorization: nil)?.status == 200)
            #expect(try await get(port, "/readyz", authorization: nil)?.status == 200)
        }
    }
}
