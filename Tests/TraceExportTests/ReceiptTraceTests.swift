import Foundation
import PipelineTesting
import Testing
import TraceExport

@testable import EndToEndSupport

/// One receipt is one trace, from the backend's request to the webhook, exported over
/// OTLP/HTTP to a receiver on loopback (OTLPReceiver.swift): every stage's spans, each
/// the child of the one before it across the broker's queues, a retry tier and the database.
@Suite struct ReceiptTraceTests {
    @Test(arguments: TestBackend.allCases)
    func aReceiptRetriedOnceThenCreditedIsOneTraceFromTheBackendToTheWebhook(_ backend: TestBackend) async throws {
        let receiver = try await OTLPReceiver.shared.value
        try await PipelineHarness.run(backend) { pipeline in
            // Given a receipt the store fails once (transient), and a backend that traces
            let traceID = Self.hex(16)
            let backendSpan = Self.hex(8)
            let account = "trace-\(backend)"
            let receipt = pipeline.receipt(
                transactions: [(id: "trace-\(backend)-1", "com.example.coins100")], failFirst: 1)

            // When the backend submits it with its traceparent
            let (status, answer) = try await pipeline.post(
                "/v1/receipts", ["account_id": account, "receipt_data": receipt],
                headers: [(name: "traceparent", value: "00-\(traceID)-\(backendSpan)-01")])
            #expect(status == 202)
            let receiptID = try #require(answer["receipt_id"] as? String)

            // Then it is credited, and the webhook's traceparent is in the backend's trace
            #expect(try await pipeline.finalStatus(receiptID)["status"] as? String == "credited")
            #expect(await eventually { !pipeline.webhooks(for: receiptID).isEmpty })
            let delivery = try #require(
                pipeline.receiver.accepted.first { String(decoding: $0.body, as: UTF8.self).contains(receiptID) })
            let webhookParent = try #require(delivery.header("traceparent")).split(separator: "-").map(String.init)
            #expect(webhookParent.count == 4 && webhookParent[1] == traceID)

            // And the receiver has the trace: every stage's spans, each under the one before
            let expected = [
                "POST /v1/receipts", "INSERT receipts", "publish", "process validate", "process validate",
                "process fulfil", "settle", "POST",
            ]
            var spans: [OTLPReceiver.Span] = []
            let complete = await eventually {
                spans = receiver.spans(of: traceID)
                return spans.contains { $0.name == "POST" && $0.spanID == webhookParent[2] }
                    && spans.filter { $0.attributes["iap.receipt.status"] == "credited" }.count == 1
                    && spans.filter { $0.attributes["iap.verify.attempt"] != nil }.count == 2
            }
            #expect(complete, "spans so far: \(spans.map(\.name)), expected at least \(expected)")
            let byID = Dictionary(spans.map { ($0.spanID, $0) }, uniquingKeysWith: { first, _ in first })
            func parent(_ span: OTLPReceiver.Span?) -> OTLPReceiver.Span? { span.flatMap { byID[$0.parentSpanID] } }

            let webhook = try #require(byID[webhookParent[2]])
            #expect(webhook.kind == 3 && webhook.attributes["http.request.method"] == "POST")
            #expect(webhook.attributes["http.response.status_code"] == "200")
            #expect(webhook.attributes["iap.receipt.id"] == receiptID)
            #expect(webhook.attributes["url.full"] == pipeline.receiver.url)

            let settle = try #require(parent(webhook))
            #expect(settle.name == "settle" && settle.attributes["iap.receipt.status"] == "credited")
            #expect(settle.attributes["db.system.name"] == (backend == .sqlite ? "sqlite" : "postgresql"))
            #expect(settle.attributes["iap.verdict.outcome"] == "valid")

            let fulfil = try #require(parent(settle))
            #expect(fulfil.name == "process \(pipeline.topology.fulfilQueue)" && fulfil.kind == 5)
            #expect(fulfil.attributes["messaging.system"] == "rabbitmq")
            #expect(fulfil.attributes["messaging.batch.message_count"] != nil)

            let second = try #require(parent(fulfil))
            #expect(second.name == "process \(pipeline.topology.validateQueue)" && second.kind == 5)
            #expect(second.attributes["iap.verify.attempt"] == "2")
            #expect(second.attributes["iap.verify.outcome"] == "valid")
            #expect(second.attributes["iap.disposition"] == "verdict")

            // The first attempt: the store's transient answer and the tier it chose (1 s here)
            let first = try #require(parent(second))
            #expect(first.attributes["iap.verify.attempt"] == "1")
            #expect(first.attributes["iap.verify.outcome"] == "transient")
            #expect(first.attributes["iap.disposition"] == "retry")
            #expect(first.attributes["iap.retry.delay_ms"] == "1000")
            #expect(first.attributes["iap.retry.queue"]?.isEmpty == false)
            #expect(first.attributes["iap.store"] == "apple")

            let publish = try #require(parent(first))
            #expect(publish.name == "publish \(pipeline.topology.workExchange)" && publish.kind == 4)
            #expect(publish.attributes["messaging.rabbitmq.destination.routing_key"] != nil)
            #expect(publish.attributes["messaging.message.id"] == receiptID)

            let commit = try #require(parent(publish))
            #expect(commit.name == "INSERT receipts" && commit.kind == 3)
            #expect(commit.attributes["db.collection.name"] == "receipts")
            #expect(commit.attributes["iap.intake.outcome"] == "created")

            // The intake's server span, child of the backend's own span
            let server = try #require(parent(commit))
            #expect(server.kind == 2 && server.parentSpanID == backendSpan)
            #expect(server.attributes["http.request.method"] == "POST")
            #expect(server.attributes["http.response.status_code"] == "202")

            // And the retrying verdict of the first attempt was settled in the same trace
            #expect(spans.contains { $0.name == "settle" && $0.attributes["iap.verdict.outcome"] == "retrying" })
            #expect(Set(spans.map(\.serviceName)) == ["iap-tests"])
        }
    }

    @Test func tracingIsOnOnlyWithAnEndpointAndIAPVariablesWin() throws {
        #expect(TraceExport.environment(["IAP_DB_PATH": "x"]) == nil)
        #expect(TraceExport.environment(["OTEL_EXPORTER_OTLP_ENDPOINT": ""]) == nil)
        let standard = try #require(TraceExport.environment(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318"]))
        #expect(standard["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://a:4318")
        let both = try #require(
            TraceExport.environment([
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "IAP_OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:4318",
                "IAP_OTEL_SERVICE_NAME": "intake-eu",
            ]))
        #expect(both["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://b:4318" && both["OTEL_SERVICE_NAME"] == "intake-eu")
        #expect(TraceExport.environment(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"]) != nil)
        #expect(
            TraceExport.environment(["IAP_OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:4318", "OTEL_SDK_DISABLED": "true"])
                == nil)
    }

    /// `count` random bytes in lower-case hex.
    static func hex(_ count: Int) -> String {
        (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
