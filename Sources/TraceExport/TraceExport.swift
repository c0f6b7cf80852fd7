import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Exports this process's spans to an OpenTelemetry collector over OTLP/HTTP (protobuf),
/// when one is named; otherwise bootstraps nothing, and the stages see the no-op tracer.
///
/// The endpoint comes from `IAP_OTEL_EXPORTER_OTLP_ENDPOINT` or the standard
/// `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL: `/v1/traces` is appended) or
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is). Every other `OTEL_*` variable swift-otel
/// reads applies too, and each may be given with the `IAP_` prefix, which wins.
public enum TraceExport {
    /// The environment swift-otel reads: `IAP_OTEL_*` copied over `OTEL_*`; nil when no
    /// endpoint is set (or `OTEL_SDK_DISABLED=true`): tracing off.
    public static func environment(_ environment: [String: String]) -> [String: String]? {
        var resolved = environment
        for (key, value) in environment where key.hasPrefix("IAP_OTEL_") {
            resolved[String(key.dropFirst("IAP_".count))] = value
        }
        let endpoint = [resolved["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], resolved["OTEL_EXPORTER_OTLP_ENDPOINT"]]
            .compactMap { $0 }.first { !$0.isEmpty }
        guard endpoint != nil, resolved["OTEL_SDK_DISABLED"]?.lowercased() != "true" else { return nil }
        return resolved
    }

    /// What `iap` configures: traces only (logs stay on stderr, metrics on `/metrics`),
    /// OTLP/HTTP with protobuf, W3C trace context, every span sampled unless the
    /// environment says otherwise.
    public static func configuration(serviceName: String) -> OTel.Configuration {
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.propagators = [.traceContext]
        // The spec's defaults (one batch of 512 every 5 s, 2,048 queued) drop most spans of
        // a stage doing a thousand receipts a second (three spans each at the intake): up to
        // 8,192 a second leave, 16,384 wait (a few MB). OTEL_BSP_* still override them.
        configuration.traces.batchSpanProcessor.scheduleDelay = .seconds(1)
        configuration.traces.batchSpanProcessor.maxExportBatchSize = 8_192
        configuration.traces.batchSpanProcessor.maxQueueSize = 16_384
        return configuration
    }

    /// Bootstraps the tracer when the environment names an endpoint, once per process.
    /// - Returns: the exporter's service (run it beside the command, shut it down after to
    ///   flush), or nil when tracing is off.
    public static func bootstrap(serviceName: String, environment: [String: String]) throws -> (any Service)? {
        guard let resolved = Self.environment(environment) else { return nil }
        return try OTel.bootstrap(configuration: configuration(serviceName: serviceName), environment: resolved)
    }

    /// A tracer exporting to `endpoint` (the full `/v1/traces` URL), not bootstrapped: for
    /// tests, which flush it every `scheduleDelay`.
    public static func tracer(
        endpoint: String, serviceName: String, scheduleDelay: Duration
    ) throws -> (tracer: any Tracer, service: any Service) {
        var configuration = configuration(serviceName: serviceName)
        configuration.traces.otlpExporter.endpoint = endpoint
        configuration.traces.batchSpanProcessor.scheduleDelay = scheduleDelay
        configuration.diagnosticLogLevel = .warning
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        return (backend.factory, backend.service)
    }

    /// Bootstraps the tracer (``bootstrap(serviceName:environment:)``) and starts its
    /// exporter; nil when tracing is off.
    public static func start(
        serviceName: String, environment: [String: String], logger: Logger
    ) throws -> RunningExporter? {
        try bootstrap(serviceName: serviceName, environment: environment).map { RunningExporter($0, logger: logger) }
    }
}

/// The exporter running beside a command; ``finish()`` sends the spans still batched.
public final class RunningExporter: Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(_ exporter: any Service, logger: Logger) {
        let group = ServiceGroup(
            configuration: .init(services: [exporter], gracefulShutdownSignals: [], logger: logger))
        self.group = group
        task = Task { try await group.run() }
    }

    public func finish() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
