import Drills
import Foundation
import Notifier
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// Our webhooks as a receiver built on the Standard Webhooks reference library
/// (`standardwebhooks` from PyPI, in a venv of scripts/standard-webhooks-venv.sh) reads them:
/// real deliveries from a real `iap notifier`, before and after a secret rotation.
@Suite struct StandardWebhooksTests {
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts")

    @Test func theReferenceLibraryVerifiesEveryDeliveryDuringAndAfterARotation() async throws {
        let venv = try await ChildProcess.run(Self.scripts.appendingPathComponent("standard-webhooks-venv.sh"), [])
        try #require(venv.status == 0, "scripts/standard-webhooks-venv.sh failed: \(venv.output)")
        let python = try #require(venv.output.split(separator: "\n").last.map(String.init))
        let old = WebhookSecret.generate().encoded
        let new = WebhookSecret.generate().encoded
        let stranger = WebhookSecret.generate().encoded
        try await withWebhookReceiver(secret: new) { receiver in
            try await ProcessPipeline.run(
                stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID),
                environment: ["IAP_WEBHOOK_URL": receiver.url]
            ) { pipeline in
                _ = try pipeline.start(["intake"])
                _ = try pipeline.start(["validator"])
                _ = try pipeline.start(["fulfiller"])
                #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))

                // Given a notifier in the middle of a rotation: the new secret and the old
                var notifier = try pipeline.start(["notifier"], environment: ["IAP_WEBHOOK_SECRET": "\(new) \(old)"])
                for index in 0..<3 {
                    let data = pipeline.receipt(transaction: "standard-\(index)")
                    #expect(try await pipeline.submit(account: "standard", receiptData: data).0 == 202)
                }
                #expect(await eventually(timeout: .seconds(60)) { receiver.accepted.count >= 3 })
                let during = receiver.accepted

                // Then the library verifies each under either secret, and refuses a stranger's
                let rotating = try await Self.verify(
                    during, python: python, accept: [new, old], refuse: [stranger], in: pipeline)
                #expect(rotating.status == 0, "\(rotating.output)")

                // When the rotation ends: the notifier on the new secret alone
                #expect(await notifier.terminate()?.status == 0)
                notifier = try pipeline.start(["notifier"], environment: ["IAP_WEBHOOK_SECRET": new])
                let data = pipeline.receipt(transaction: "standard-after")
                #expect(try await pipeline.submit(account: "standard", receiptData: data).0 == 202)
                #expect(await eventually(timeout: .seconds(60)) { receiver.accepted.count >= 4 })
                let after = receiver.accepted.filter { delivery in !during.contains { $0.id == delivery.id } }

                // Then the new secret verifies it, and the old one no longer does
                #expect(!after.isEmpty)
                let rotated = try await Self.verify(
                    after, python: python, accept: [new], refuse: [old, stranger], in: pipeline)
                #expect(rotated.status == 0, "\(rotated.output)")
            }
        }
    }

    /// Writes the deliveries as the receiver got them and runs scripts/standard_webhooks_check.py.
    static func verify(
        _ deliveries: [WebhookReceiver.Delivery], python: String, accept: [String], refuse: [String],
        in pipeline: ProcessPipeline
    ) async throws -> ChildProcess.Outcome {
        let file = pipeline.directory.file("deliveries-\(UUID().uuidString).json")
        let records = deliveries.map { ["headers": $0.headers, "body": $0.bodyString] as [String: Any] }
        try JSONSerialization.data(withJSONObject: records).write(to: URL(fileURLWithPath: file))
        let arguments =
            [scripts.appendingPathComponent("standard_webhooks_check.py").path, file]
            + accept.flatMap { ["--accept", $0] } + refuse.flatMap { ["--refuse", $0] }
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: python), arguments)
        print("standard webhooks: \(outcome.output)")
        return outcome
    }
}
