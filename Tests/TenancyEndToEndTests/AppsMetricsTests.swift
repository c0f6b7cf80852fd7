import Foundation
import Notifier
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// The `app` label of the per-app counters (issue 30), read from real `iap` processes'
/// `/metrics`: one series per app of the file, made at 0 at start, each webhook counted
/// under its own app.
@Suite struct AppsMetricsTests {
    @Test func webhooksAreCountedPerAppAndEveryAppHasItsSeries() async throws {
        let puzzleSecret = WebhookSecret.generate()
        let racerSecret = WebhookSecret.generate()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await withWebhookReceiver(secret: puzzleSecret.encoded) { puzzleHook in
            try await withWebhookReceiver(secret: racerSecret.encoded) { racerHook in
                let apps = try AppsOperatorCommandsTests.writeApps(
                    in: directory,
                    webhooks: [(puzzleHook.url, puzzleSecret.encoded), (racerHook.url, racerSecret.encoded)])
                try await ProcessPipeline.run(
                    stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID), environment: ["IAP_APPS": apps]
                ) { pipeline in
                    let fulfillerAdmin = ProcessPipeline.freePort()
                    let notifierAdmin = ProcessPipeline.freePort()
                    // Given player-1 credited in both apps, each webhook taken by its app's receiver
                    try await AppsOperatorCommandsTests.givenPlayerOneCreditedInBothApps(
                        pipeline, try pipeline.database(),
                        stages: [
                            ["intake"], ["validator"], ["fulfiller", "--admin-port", "\(fulfillerAdmin)"],
                            ["notifier", "--admin-port", "\(notifierAdmin)"],
                        ])
                    #expect(
                        await eventually(timeout: .seconds(60)) {
                            !puzzleHook.accepted.isEmpty && !racerHook.accepted.isEmpty
                        })

                    // Then the notifier counts one delivery under each app
                    func metrics(_ port: Int) async -> PrometheusText? {
                        guard let body = try? await pipeline.get("http://127.0.0.1:\(port)/metrics").body else {
                            return nil
                        }
                        return try? PrometheusText(parsing: body)
                    }
                    let counted = await eventually(timeout: .seconds(10)) {
                        let notifier = await metrics(notifierAdmin)
                        return notifier?.value("iap_webhooks_delivered_total", ["app": "puzzle"]) == 1
                            && notifier?.value("iap_webhooks_delivered_total", ["app": "racer"]) == 1
                    }
                    #expect(counted)
                    let notifier = try #require(await metrics(notifierAdmin))
                    #expect(
                        Set(notifier.samples("iap_webhooks_failed_total").compactMap { $0.labels["app"] })
                            == ["puzzle", "racer"])
                    #expect(notifier.value("iap_webhooks_failed_total", ["app": "racer", "final": "true"]) == 0)

                    // And the fulfiller has a credited series for each app of the file, no other,
                    // each counting its own app's credit
                    let fulfiller = try #require(await metrics(fulfillerAdmin))
                    let credited = fulfiller.samples("iap_receipts_credited_total")
                    #expect(Set(credited.compactMap { $0.labels["app"] }) == ["puzzle", "racer"])
                    #expect(fulfiller.value("iap_receipts_credited_total", ["app": "puzzle"]) == 1)
                    #expect(fulfiller.value("iap_receipts_credited_total", ["app": "racer"]) == 1)
                }
            }
        }
    }
}
