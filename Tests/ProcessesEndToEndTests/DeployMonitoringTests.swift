import Database
import Foundation
import Notifier
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// The dashboard and the alert rules in deploy/ ask only for metrics a running pipeline
/// exports: every stage an `iap` process, receipts driven through, each `/metrics` scraped.
@Suite struct DeployMonitoringTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Metrics only an event this test cannot cause creates, each with the reason.
    static let needEvents: [String: String] = [
        "iap_reconcile_missing_total": "a reconciliation run, which needs App Store Server API keys",
        "iap_reconcile_runs_total": "a reconciliation run, which needs App Store Server API keys",
        "iap_consumption_answers_total": "Apple's consumption request, which needs Server API keys",
        "iap_appstore_api_budget_used_ratio": "a store API call booked in a budget (StoreKit 2 or Google Play)",
        "iap_appstore_api_calls_total": "a store API call booked in a budget (StoreKit 2 or Google Play)",
        "iap_appstore_api_deferred_total": "a call the budget could not place within 10 s",
        "iap_appstore_api_rate_limited_total": "a 429 from the store",
        "iap_appstore_api_budget_booked_ahead_seconds": "a store API call booked in a budget",
        "iap_store_confirmations_overdue": "the fulfiller's store confirmer, which needs a store with credentials",
        "iap_intake_unavailable_total":
            "a 503 of the intake's, which needs its database full or down (AloneFullDiskTests)",
    ]

    @Test func everyMetricTheDashboardAndTheRulesQueryIsExported() async throws {
        let wanted = try Self.queriedMetrics()
        #expect(wanted.count > 20, "the parse found too few names: \(wanted.sorted())")
        let secret = WebhookSecret.generate()
        var exported: Set<String> = []
        try await withWebhookReceiver(secret: secret.encoded) { receiver in
            try await ProcessPipeline.run(
                stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID),
                environment: ["IAP_WEBHOOK_URL": receiver.url, "IAP_WEBHOOK_SECRET": secret.encoded]
            ) { pipeline in
                // Given every stage as its own process, each serving /metrics
                let ports = (0..<3).map { _ in ProcessPipeline.freePort() }
                _ = try pipeline.start(["intake"])
                _ = try pipeline.start(["validator", "--admin-port", "\(ports[0])"])
                _ = try pipeline.start(["fulfiller", "--admin-port", "\(ports[1])"])
                _ = try pipeline.start(["notifier", "--admin-port", "\(ports[2])"])
                let urls = ["http://127.0.0.1:\(pipeline.intakePort)"] + ports.map { "http://127.0.0.1:\($0)" }
                for url in urls { #expect(await pipeline.waitUntilServing("\(url)/healthz")) }

                // When a receipt is credited, one is credited after a transient failure and one is rejected
                let good = pipeline.receipt(transaction: "monitoring-1")
                let retried = pipeline.stub.issue(
                    StubReceipt(
                        bundleID: PipelineHarness.bundleID, environment: .production,
                        transactions: [
                            StubReceipt.Transaction(transactionID: "monitoring-2", productID: "com.example.coins100")
                        ],
                        failFirst: 1))
                let other = pipeline.receipt(transaction: "monitoring-3", bundleID: "com.other.app")
                for data in [good, retried, other] {
                    #expect(try await pipeline.submit(account: "monitoring", receiptData: data).0 == 202)
                }
                let database = try pipeline.database()
                #expect(
                    await eventually(timeout: .seconds(60)) {
                        let counts = (try? await ReceiptRepository(database).receiptStatusCounts()) ?? [:]
                        return counts[.credited, default: 0] == 2 && counts[.rejected, default: 0] == 1
                    })
                #expect(await eventually(timeout: .seconds(30)) { receiver.accepted.count >= 3 })

                // Then the scrapes, once the queue gauges have been polled, hold every name
                #expect(
                    await eventually(timeout: .seconds(30), every: .milliseconds(500)) {
                        exported = await Self.scrape(urls, pipeline)
                        return exported.contains("iap_queue_depth")
                            && exported.contains("iap_webhook_delivery_lag_seconds_count")
                    })

                // And iap audit writes its textfile metrics
                let textfile = pipeline.directory.file("audit.prom")
                let audit = try await IAPProcess.run(
                    ["audit", "--metrics-file", textfile], environment: pipeline.environment)
                #expect(audit.status == 0, "\(audit.output)")
                let auditMetrics = try PrometheusText(parsing: String(contentsOfFile: textfile, encoding: .utf8))
                #expect(auditMetrics.value("iap_audit_findings") == 0)
                exported.formUnion(auditMetrics.families.values.flatMap(\.samples).map(\.name))
            }
        }
        let missing = wanted.subtracting(exported).subtracting(Self.needEvents.keys)
        #expect(missing.isEmpty, "queried but not exported: \(missing.sorted())")
        // The exemptions stay honest: each is queried, and none is exported after all.
        #expect(Set(Self.needEvents.keys).isSubset(of: wanted))
        #expect(Set(Self.needEvents.keys).isDisjoint(with: exported), "exported now; drop the exemption")
    }

    /// Every sample name in each `/metrics`, with the family names (a histogram's base name).
    static func scrape(_ urls: [String], _ pipeline: ProcessPipeline) async -> Set<String> {
        var names: Set<String> = []
        for url in urls {
            guard let body = try? await pipeline.get("\(url)/metrics").body,
                let text = try? PrometheusText(parsing: body)
            else { continue }
            for family in text.families.values {
                names.insert(family.name)
                names.formUnion(family.samples.map(\.name))
            }
        }
        return names
    }

    /// The `iap_` metric names in the dashboard's target expressions and the rules' text.
    static func queriedMetrics() throws -> Set<String> {
        let dashboard = try Data(contentsOf: root.appendingPathComponent("deploy/grafana/iap-pipeline.json"))
        let panels = try #require(
            (try JSONSerialization.jsonObject(with: dashboard) as? [String: Any])?["panels"] as? [[String: Any]])
        var expressions = panels.flatMap {
            ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }
        }
        let rules = try String(
            contentsOf: root.appendingPathComponent("deploy/prometheus/iap-alerts.yml"), encoding: .utf8)
        expressions += rules.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
            .map(String.init)
        let pattern = #/iap_[a-z0-9_]+/#
        return Set(expressions.flatMap { $0.matches(of: pattern).map { String($0.output) } })
    }
}
