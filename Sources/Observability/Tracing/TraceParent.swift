import Broker
import Instrumentation
import Tracing

/// The W3C trace context as the pipeline carries it between processes: a `traceparent`
/// string in a database row, or the `traceparent` header of an AMQP message. The
/// bootstrapped tracer's propagator writes and reads it (swift-otel's is W3C by default).
public enum TraceParent {
    /// The header's name, the same in HTTP and AMQP (W3C trace context, OpenTelemetry's
    /// messaging conventions).
    public static let header = MessageHeader.traceparent

    /// `context` as a `traceparent` value; nil when it holds no span (or tracing is off).
    public static func string(of context: InstrumentationContext) -> String? {
        var carrier: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: DictionaryInjector())
        return carrier[header]
    }

    /// The current task's span context as a `traceparent` value.
    public static var current: String? {
        InstrumentationContext.current.flatMap(string(of:))
    }

    /// A context whose remote parent is `traceparent`; a top-level one when it is nil or unreadable.
    public static func context(_ traceparent: String?) -> InstrumentationContext {
        var context = InstrumentationContext.topLevel
        guard let traceparent else { return context }
        InstrumentationSystem.instrument.extract(
            [header: traceparent], into: &context, using: DictionaryExtractor())
        return context
    }

    /// The context a message's `traceparent` header names (top-level when it has none).
    public static func context(_ headers: [String: AMQPValue]) -> InstrumentationContext {
        context(headers[header]?.stringValue)
    }

    /// `headers` with the `traceparent` of `context` (and without a stale one when it has none).
    public static func inject(_ context: InstrumentationContext, into headers: inout [String: AMQPValue]) {
        headers[header] = string(of: context).map(AMQPValue.string)
    }
}

private struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}

private struct DictionaryExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}
