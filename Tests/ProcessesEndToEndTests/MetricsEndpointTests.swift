import Database
import DatabaseSQLite
import Foundation
import Notifier
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// `/metrics`, `/healthz` and `/readyz` of real `iap` processes: what Prometheus and a
/// Kubernetes probe would read.
@Suite struct MetricsEndpointTests {
    @Test func metricsParseAsPrometheusTextAndCountWhatWasSent() async throws {
        let secret = WebhookSecret.generate()
        try await withWebhookReceiver(secret: secret.encoded) { receiver in
            try await ProcessPipeline.run(
                stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID),
                environment: ["IAP_WEBHOOK_URL": receiver.url, "IAP_WEBHOOK_SECRET": secret.encoded]
            ) { pipeline in
                // Given every stage as its own process, workers with admin ports
                let validatorAdmin = ProcessPipeline.freePort()
                let fulfillerAdmin = ProcessPipeline.freePort()
                let notifierAdmin = ProcessPipeline.freePort()
                let intake = "http://127.0.0.1:\(pipeline.intakePort)"
                let validator = "http://127.0.0.1:\(validatorAdmin)"
                let fulfiller = "http://127.0.0.1:\(fulfillerAdmin)"
                let notifier = "http://127.0.0.1:\(notifierAdmin)"
                _ = try pipeline.start(["intake"])
                _ = try pipeline.start(["validator", "--concurrency", "16", "--admin-port", "\(validatorAdmin)"])
                _ = try pipeline.start(["fulfiller"], environment: ["IAP_ADMIN_PORT": "\(fulfillerAdmin)"])
                _ = try pipeline.start(["notifier", "--admin-port", "\(notifierAdmin)"])
                for url in [intake, validator, fulfiller, notifier] {
                    #expect(await pipeline.waitUntilServing("\(url)/healthz"), "\(url) should serve /healthz")
                }
                #expect(
                    await eventually(timeout: .seconds(30)) {
                        (try? await pipeline.get("\(intake)/readyz").status) == 200
                    })

                // Counters exist from the start, at 0, so that rate() has a first sample
                let before = try PrometheusText(parsing: try await pipeline.get("\(intake)/metrics").body)
                #expect(before.value("iap_receipts_received_total", ["kind": "legacy"]) == 0)

                // When the backend sends 12 good receipts and 3 for another app
                let good = 12
                let bad = 3
                var sent: [String] = []
                for index in 0..<good {
                    sent.append(pipeline.receipt(transaction: "metrics-\(index)"))
                    let (status, _) = try await pipeline.submit(account: "metrics", receiptData: sent[index])
                    #expect(status == 202)
                }
                for index in 0..<bad {
                    let data = pipeline.receipt(transaction: "other-\(index)", bundleID: "com.other.app")
                    let (status, _) = try await pipeline.submit(account: "metrics", receiptData: data)
                    #expect(status == 202)
                }
                let database = try pipeline.database()
                let settled = await eventually(timeout: .seconds(60)) {
                    let counts = (try? await ReceiptRepository(database).receiptStatusCounts()) ?? [:]
                    return counts[.credited, default: 0] == good && counts[.rejected, default: 0] == bad
                }
                #expect(settled)

                // Then each process's /metrics parses strictly and counts exactly that
                let intakeMetrics = try PrometheusText(parsing: try await pipeline.get("\(intake)/metrics").body)
                #expect(intakeMetrics.value("iap_receipts_received_total", ["kind": "legacy"]) == Double(good + bad))
                #expect(intakeMetrics.families["iap_receipts_received_total"]?.type == "counter")

                let validatorMetrics = try PrometheusText(parsing: try await pipeline.get("\(validator)/metrics").body)
                #expect(validatorMetrics.value("iap_receipts_validated_total") == Double(good))
                #expect(validatorMetrics.value("iap_receipts_rejected_total") == Double(bad))
                #expect(
                    validatorMetrics.value("iap_verify_duration_seconds_count", ["outcome": "valid"]) == Double(good))
                #expect(
                    validatorMetrics.value("iap_verify_duration_seconds_count", ["outcome": "rejected"]) == Double(bad))
                #expect(validatorMetrics.families["iap_verify_duration_seconds"]?.type == "histogram")

                // The fulfiller counts a credit once its commit is done, so the last may lag the status by a hair.
                var fulfillerMetrics = try PrometheusText(parsing: try await pipeline.get("\(fulfiller)/metrics").body)
                _ = await eventually(timeout: .seconds(10)) {
                    guard let body = try? await pipeline.get("\(fulfiller)/metrics").body,
                        let parsed = try? PrometheusText(parsing: body)
                    else { return false }
                    fulfillerMetrics = parsed
                    return parsed.value("iap_receipts_credited_total") == Double(good)
                }
                #expect(fulfillerMetrics.value("iap_receipts_credited_total") == Double(good))
                // With the single-app settings the app label is `default`.
                #expect(fulfillerMetrics.value("iap_receipts_credited_total", ["app": "default"]) == Double(good))
                #expect(fulfillerMetrics.value("iap_end_to_end_duration_seconds_count") == Double(good))
                // And the revenue they were priced at (the sample catalog's $0.99 each: a legacy
                // receipt has no price), by app, store and currency, in minor units
                let revenue = ["app": "default", "store": "apple", "currency": "USD"]
                #expect(fulfillerMetrics.value("iap_revenue_payments_total", revenue) == Double(good))
                #expect(fulfillerMetrics.value("iap_revenue_paid_minor_units_total", revenue) == Double(good * 99))
                #expect(fulfillerMetrics.value("iap_revenue_proceeds_minor_units_total", revenue) == Double(good * 69))
                #expect(fulfillerMetrics.families["iap_revenue_paid_minor_units_total"]?.type == "counter")

                // Every final receipt is a webhook; the notifier counts each one the receiver took.
                #expect(await eventually(timeout: .seconds(30)) { receiver.accepted.count >= good + bad })
                let delivered = await eventually(timeout: .seconds(10)) {
                    guard let body = try? await pipeline.get("\(notifier)/metrics").body,
                        let parsed = try? PrometheusText(parsing: body)
                    else { return false }
                    return parsed.value("iap_webhooks_delivered_total") == Double(receiver.accepted.count)
                        && parsed.value("iap_webhooks_failed_total", ["final": "true"]) == 0
                }
                #expect(delivered)
                #expect(try await pipeline.get("\(notifier)/readyz").status == 200)

                // Queue depths are polled every 5 s into a gauge per queue; the work is done, so 0.
                let validateQueue = "\(pipeline.broker.prefix).validate"
                let depthSeen = await eventually(timeout: .seconds(20), every: .milliseconds(500)) {
                    guard let body = try? await pipeline.get("\(intake)/metrics").body,
                        let parsed = try? PrometheusText(parsing: body)
                    else { return false }
                    return parsed.value("iap_queue_depth", ["queue": validateQueue]) == 0
                        && parsed.value("iap_queue_consumers", ["queue": validateQueue]) == 1
                }
                #expect(depthSeen)

                // And nothing secret or a receipt body went to the logs at info level
                let logs = pipeline.logs()
                #expect(!logs.contains(ProcessPipeline.token))
                #expect(!logs.contains(ProcessPipeline.sharedSecret))
                #expect(!sent.contains { logs.contains($0) })
                #expect(!logs.contains("receipt-data"))
                #expect(!logs.contains(secret.encoded))
            }
        }
    }

    @Test func readyzAnswers503NamingTheDatabaseOnceItsFileIsGone() async throws {
        try await ProcessPipeline.run(stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID)) { pipeline in
            // Given an intake that is ready
            let intake = "http://127.0.0.1:\(pipeline.intakePort)"
            _ = try pipeline.start(["intake"])
            #expect(await pipeline.waitUntilServing("\(intake)/healthz"))
            #expect(
                await eventually(timeout: .seconds(30)) { (try? await pipeline.get("\(intake)/readyz").status) == 200 })

            // When its database file disappears (a volume unmounted, a file removed by hand)
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: pipeline.directory.file("iap.sqlite") + suffix)
            }

            // Then /readyz says 503 and names the database; /healthz still says the process is alive
            let ready = try await pipeline.get("\(intake)/readyz")
            #expect(ready.status == 503)
            #expect(ready.body.contains("database:"))
            #expect(ready.body.contains("does not exist"))
            #expect(try await pipeline.get("\(intake)/healthz").status == 200)
        }
    }

    @Test func readyzAnswers503NamingTheBrokerWhenItIsUnreachable() async throws {
        try await ProcessPipeline.run(stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID)) { pipeline in
            // Given a validator pointed at a port where no broker listens
            let admin = "http://127.0.0.1:\(ProcessPipeline.freePort())"
            let port = ProcessPipeline.freePort()
            _ = try pipeline.start(
                ["validator", "--admin-port", String(admin.split(separator: ":").last!)],
                environment: ["IAP_AMQP_URL": "amqp://guest:guest@127.0.0.1:\(port)/"])

            // Then it is alive but not ready, and says why
            #expect(await pipeline.waitUntilServing("\(admin)/healthz"))
            #expect(try await pipeline.get("\(admin)/healthz").status == 200)
            let ready = try await pipeline.get("\(admin)/readyz")
            #expect(ready.status == 503)
            #expect(ready.body.contains("broker: not connected to amqp://guest:***@127.0.0.1:\(port)/"))
            // /metrics answers even so
            _ = try PrometheusText(parsing: try await pipeline.get("\(admin)/metrics").body)
        }
    }
}
