import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// A notification Apple could not deliver (the intake never received it) is found in
/// Apple's Notification History by `iap reconcile`, fed through the validate queue and
/// applied once; a second run finds nothing.
@Suite struct ReconciliationEndToEndTests {
    /// `iap reconcile` beside the pipeline: its database, and the stub's Server API with the
    /// stub's development key.
    static func reconcile(_ pipeline: PipelineHarness, _ arguments: [String], key: String) async throws
        -> (status: Int32, report: [String: Any], output: String)
    {
        var environment = pipeline.databaseEnvironment
        environment["IAP_APPSTORE_PRIVATE_KEY"] = key
        environment["IAP_APPSTORE_KEY_ID"] = StubServerAPIConfiguration.developmentKeyID
        environment["IAP_APPSTORE_ISSUER_ID"] = StubServerAPIConfiguration.developmentIssuerID
        environment["IAP_APPSTORE_API_URL"] = "http://127.0.0.1:\(pipeline.stubPort)"
        environment["IAP_APPSTORE_API_SANDBOX_URL"] = "http://127.0.0.1:\(pipeline.stubPort)/sandbox"
        let run = try await IAPProcess.run(["reconcile", "--json"] + arguments, environment: environment)
        let json = run.output.firstIndex(of: "{").map { String(run.output[$0...]) } ?? ""
        let report = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
        return (run.status, report, run.output)
    }

    /// The stub's development key written to `directory`: the file `IAP_APPSTORE_PRIVATE_KEY` names.
    static func stubKey(in directory: TemporaryDirectory) throws -> String {
        let key = directory.file("AuthKey_STUB.p8")
        try StubServerAPIConfiguration.developmentPrivateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
        return key
    }

    @Test(arguments: TestBackend.allCases) func aNotificationTheIntakeNeverReceived_isFoundAndAppliedOnce(
        _ backend: TestBackend
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try Self.stubKey(in: directory)

        try await PipelineHarness.run(backend) { pipeline in
            // Given 100 coins credited to "spender", and a second purchase credited to "other"
            let store = pipeline.stub.storeKit
            let purchase = StubTransaction(transactionID: "9100000001", productID: "com.example.coins100")
            let kept = StubTransaction(transactionID: "9100000002", productID: "com.example.coins100")
            for (account, transaction) in [("spender", purchase), ("other", kept)] {
                let (_, id) = try await pipeline.submit(
                    account: account, signedTransaction: store.signTransaction(transaction))
                #expect(try await pipeline.finalStatus(try #require(id))["status"] as? String == "credited")
            }

            // When Apple's REFUND of the first never reaches the intake (every attempt fails),
            // and a REFUND of the second fails once and then arrives on Apple's retry
            var refunded = purchase
            refunded.revocationDate = Date()
            let lost = store.signNotification(type: .refund, transaction: refunded)
            let unreachable = "http://127.0.0.1:1/v1/apple/notifications"
            for _ in 0..<2 { _ = try? await store.send(lost, to: unreachable) }
            var refundedLater = kept
            refundedLater.revocationDate = Date()
            let retried = store.signNotification(type: .refund, transaction: refundedLater)
            _ = try? await store.send(retried, to: unreachable)
            #expect(try await store.send(retried, to: pipeline.notificationURL) == 200)
            #expect(await pipeline.notificationsSettled(1))
            #expect(try await pipeline.balance("spender") == 100)

            // Then a dry run reports the lost one (and not the one delivered on retry), storing nothing
            let dry = try await Self.reconcile(pipeline, ["--since", "1h", "--dry-run"], key: key)
            #expect(dry.status == 0, "\(dry.output)")
            #expect(dry.report["examined"] as? Int == 1)
            #expect(dry.report["missing"] as? Int == 1)
            #expect(dry.report["fed"] as? Int == 0)

            // And a run feeds it: the relay publishes it, the validator verifies it, and the
            // refund is applied once
            let first = try await Self.reconcile(pipeline, ["--since", "1h"], key: key)
            #expect(first.status == 0, "\(first.output)")
            #expect(first.report["missing"] as? Int == 1)
            #expect(first.report["fed"] as? Int == 1)
            let environments = first.report["environments"] as? [[String: Any]] ?? []
            let sandbox = environments.first { $0["environment"] as? String == "Sandbox" }
            let missing = (sandbox?["missing"] as? [[String: Any]])?.first
            #expect(missing?["notification_type"] as? String == "REFUND")
            #expect(await pipeline.notificationsSettled(2))
            #expect(try await pipeline.balance("spender") == 0)
            let ledger = try await LedgerRepository(pipeline.database).account(id: "spender")?.ledger ?? []
            #expect(ledger.filter { $0.amount < 0 }.map(\.amount) == [-100])

            // And a second run finds nothing missing; the books balance
            let second = try await Self.reconcile(pipeline, ["--since", "1h"], key: key)
            #expect(second.status == 0, "\(second.output)")
            #expect(second.report["examined"] as? Int == 1)
            #expect(second.report["missing"] as? Int == 0)
            #expect(second.report["fed"] as? Int == 0)
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)
            #expect(try await ReconciliationRepository(pipeline.database).latest()?.missing == 0)
        }
    }

    @Test func badWindowsAndMissingCredentialsAreRefusedByName() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = ["IAP_DB_PATH": directory.file("iap.sqlite")]
        let old = try await IAPProcess.run(["reconcile", "--since", "200d"], environment: environment)
        #expect(old.status != 0 && old.output.contains("more than 180 days"), "\(old.output)")
        let garbled = try await IAPProcess.run(["reconcile", "--since", "yesterday"], environment: environment)
        #expect(garbled.status != 0 && garbled.output.contains("yesterday is not a time"), "\(garbled.output)")
        let keyless = try await IAPProcess.run(["reconcile"], environment: environment)
        #expect(keyless.status != 0 && keyless.output.contains("IAP_APPSTORE_PRIVATE_KEY"), "\(keyless.output)")
    }
}
