import Foundation
import Hummingbird
import Instrumentation
import Logging
import NIOCore
import PipelineTesting
import ServiceLifecycle
import Synchronization
import TraceExport
import Tracing

/// A small OTLP/HTTP receiver on loopback: takes `POST /v1/traces` as swift-otel's exporter
/// sends it (protobuf), keeps every span. ``shared`` starts it once per test process and
/// bootstraps the process's tracer to export to it; from then on every pipeline built in
/// this process traces.
final class OTLPReceiver: Sendable {
    /// One span as exported, ids in lower-case hex.
    struct Span: Sendable, CustomStringConvertible {
        var traceID = ""
        var spanID = ""
        var parentSpanID = ""
        var name = ""
        /// OTLP's numbers: 2 server, 3 client, 4 producer, 5 consumer.
        var kind = 0
        var attributes: [String: String] = [:]
        var serviceName = ""

        var description: String { "\(name) [\(spanID) ← \(parentSpanID)] \(attributes)" }
    }

    private let spans = Mutex<[Span]>([])
    let requests = Atomic<Int>(0)
    private let port = Atomic<Int>(0)

    /// Its base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it (`/v1/traces` is appended).
    var endpoint: String { "http://127.0.0.1:\(port.load(ordering: .relaxed))" }

    /// Started, with the tracer bootstrapped, on first use.
    static let shared = Task { try await OTLPReceiver.start() }

    /// Every span received of the trace `traceID`.
    func spans(of traceID: String) -> [Span] {
        spans.withLock { $0.filter { $0.traceID == traceID } }
    }

    private static func start() async throws -> OTLPReceiver {
        let receiver = OTLPReceiver()
        let router = Router()
        router.post("/v1/traces") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 16 << 20)
            let decoded = try OTLPProtobuf.spans(Array(buffer: body))
            receiver.spans.withLock { $0 += decoded }
            receiver.requests.add(1, ordering: .relaxed)
            // An empty ExportTraceServiceResponse: everything accepted.
            return Response(status: .ok, headers: [.contentType: "application/x-protobuf"], body: .init())
        }
        var logger = Logger(label: "otlp-receiver")
        logger.logLevel = .warning
        let port = Ports()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { await port.set($0.localAddress?.port ?? 0) }, logger: logger)
        _ = RunningService(app, logger: logger)
        receiver.port.store(await port.value, ordering: .relaxed)
        let (tracer, exporter) = try TraceExport.tracer(
            endpoint: "\(receiver.endpoint)/v1/traces", serviceName: "iap-tests",
            scheduleDelay: .milliseconds(100))
        _ = RunningService(exporter, logger: logger)
        InstrumentationSystem.bootstrap(tracer)
        return receiver
    }
}

/// The few protobuf messages of OTLP's trace export that the tests read, decoded from the
/// wire format (opentelemetry/proto/collector/trace/v1): swift-otel keeps its generated
/// types to itself.
enum OTLPProtobuf {
    struct Malformed: Error {}

    /// The spans of an `ExportTraceServiceRequest`.
    static func spans(_ bytes: [UInt8]) throws -> [OTLPReceiver.Span] {
        var spans: [OTLPReceiver.Span] = []
        for resourceSpans in try fields(bytes[...]) where resourceSpans.number == 1 {
            var service = ""
            var scopes: [ArraySlice<UInt8>] = []
            for field in try fields(resourceSpans.bytes) {
                if field.number == 1 {  // Resource
                    for attribute in try fields(field.bytes) where attribute.number == 1 {
                        let (key, value) = try keyValue(attribute.bytes)
                        if key == "service.name" { service = value }
                    }
                } else if field.number == 2 {
                    scopes.append(field.bytes)
                }
            }
            for scope in scopes {
                for field in try fields(scope) where field.number == 2 {
                    var span = try self.span(field.bytes)
                    span.serviceName = service
                    spans.append(span)
                }
            }
        }
        return spans
    }

    private static func span(_ bytes: ArraySlice<UInt8>) throws -> OTLPReceiver.Span {
        var span = OTLPReceiver.Span()
        for field in try fields(bytes) {
            switch field.number {
            case 1: span.traceID = hex(field.bytes)
            case 2: span.spanID = hex(field.bytes)
            case 4: span.parentSpanID = hex(field.bytes)
            case 5: span.name = String(decoding: field.bytes, as: UTF8.self)
            case 6: span.kind = Int(field.varint)
            case 9:
                let (key, value) = try keyValue(field.bytes)
                span.attributes[key] = value
            default: break
            }
        }
        return span
    }

    /// A `KeyValue`, its `AnyValue` as text (strings, booleans, integers, doubles).
    private static func keyValue(_ bytes: ArraySlice<UInt8>) throws -> (String, String) {
        var key = ""
        var value = ""
        for field in try fields(bytes) {
            if field.number == 1 { key = String(decoding: field.bytes, as: UTF8.self) }
            guard field.number == 2 else { continue }
            for any in try fields(field.bytes) {
                switch any.number {
                case 1: value = String(decoding: any.bytes, as: UTF8.self)
                case 2: value = any.varint == 0 ? "false" : "true"
                case 3: value = String(Int64(bitPattern: any.varint))
                case 4: value = String(Double(bitPattern: any.varint))
                default: break
                }
            }
        }
        return (key, value)
    }

    private struct Field {
        var number: Int
        /// Varint and fixed-width values.
        var varint: UInt64 = 0
        /// Length-delimited values.
        var bytes: ArraySlice<UInt8> = []
    }

    private static func fields(_ bytes: ArraySlice<UInt8>) throws -> [Field] {
        var fields: [Field] = []
        var rest = bytes
        while !rest.isEmpty {
            let tag = try varint(&rest)
            var field = Field(number: Int(tag >> 3))
            switch tag & 7 {
            case 0: field.varint = try varint(&rest)
            case 1: field.varint = try fixed(&rest, 8)
            case 2:
                let length = Int(try varint(&rest))
                guard rest.count >= length else { throw Malformed() }
                field.bytes = rest.prefix(length)
                rest = rest.dropFirst(length)
            case 5: field.varint = try fixed(&rest, 4)
            default: throw Malformed()
            }
            fields.append(field)
        }
        return fields
    }

    private static func varint(_ bytes: inout ArraySlice<UInt8>) throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.popFirst() {
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
            guard shift < 64 else { break }
        }
        throw Malformed()
    }

    private static func fixed(_ bytes: inout ArraySlice<UInt8>, _ width: Int) throws -> UInt64 {
        guard bytes.count >= width else { throw Malformed() }
        var value: UInt64 = 0
        for (index, byte) in bytes.prefix(width).enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        bytes = bytes.dropFirst(width)
        return value
    }

    private static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
