import Foundation
import HTTPClient
import Notifier
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// The same trace when every stage is an `iap` process exporting on its own (the
/// environment names the receiver): one service per stage, the parent links unbroken
/// across them.
@Suite struct ReceiptTraceProcessTests {
    @Test func eachStageProcessExportsItsSpansIntoTheReceiptsOneTrace() async throws {
        let collector = try await OTLPReceiver.shared.value
        let secret = WebhookSecret.generate()
        try await withWebhookReceiver(secret: secret.encoded) { webhooks in
            try await ProcessPipeline.run(
                stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID),
                environment: [
                    "IAP_WEBHOOK_URL": webhooks.url, "IAP_WEBHOOK_SECRET": secret.encoded,
                    "IAP_OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "100",
                ]
            ) { pipeline in
                // Given every stage as its own process, tracing to the collector
                for stage in ["intake", "validator", "fulfiller", "notifier"] { _ = try pipeline.start([stage]) }
                #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))

                // When the backend submits, with its traceparent, a receipt the store fails once
                let traceID = ReceiptTraceTests.hex(16)
                let receipt = pipeline.stub.issue(
                    StubReceipt(
                        bundleID: PipelineHarness.bundleID,
                        transactions: [
                            StubReceipt.Transaction(transactionID: "traced-1", productID: "com.example.coins100")
                        ],
                        failFirst: 1))
                let response = try await pipeline.client.execute(
                    HTTPRequest(
                        method: .post, url: "http://127.0.0.1:\(pipeline.intakePort)/v1/receipts",
                        headers: [
                            (name: "Authorization", value: "Bearer \(ProcessPipeline.token)"),
                            (name: "Content-Type", value: "application/json"),
                            (name: "traceparent", value: "00-\(traceID)-\(ReceiptTraceTests.hex(8))-01"),
                        ],
                        body: Array(
                            try JSONSerialization.data(withJSONObject: ["account_id": "t", "receipt_data": receipt]))))
                #expect(response.status == 202)

                // Then the webhook arrives in that trace
                #expect(await eventually(timeout: .seconds(60)) { !webhooks.accepted.isEmpty })
                let header = try #require(webhooks.accepted.first?.header("traceparent")).split(separator: "-")
                #expect(header.count == 4 && String(header[1]) == traceID)

                // And each process exported its spans into it, each under the one before
                var spans: [OTLPReceiver.Span] = []
                let chain = [
                    ("POST", "iap-notifier"), ("settle", "iap-fulfiller"), ("process", "iap-fulfiller"),
                    ("process", "iap-validator"), ("process", "iap-validator"), ("publish", "iap-intake"),
                    ("INSERT receipts", "iap-intake"), ("/v1/receipts", "iap-intake"),
                ]
                var walked: [(String, String)] = []
                let whole = await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                    spans = collector.spans(of: traceID)
                    let byID = Dictionary(spans.map { ($0.spanID, $0) }, uniquingKeysWith: { first, _ in first })
                    walked = []
                    var next = byID[String(header[2])]
                    while let span = next {
                        walked.append((span.name, span.serviceName))
                        next = byID[span.parentSpanID]
                    }
                    return walked.count == chain.count
                }
                #expect(whole, "walked \(walked), of \(spans.count) spans")
                #expect(walked.count == chain.count)
                for ((name, service), (expectedName, expectedService)) in zip(walked, chain) {
                    #expect(name.hasPrefix(expectedName) && service == expectedService, "\(name) in \(service)")
                }
            }
        }
    }
}
