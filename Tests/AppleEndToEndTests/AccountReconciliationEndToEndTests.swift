import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// `iap reconcile --account`: one account's purchases against Apple's Transaction History
/// (v2). A purchase tied to the account that never reached us is credited, a refund that
/// never reached us is taken back, each once through the pipeline; purchases of the same
/// Apple account with no tie to this account are reported and left alone.
@Suite struct AccountReconciliationEndToEndTests {
    @Test(arguments: TestBackend.allCases) func anAccountsMissedPurchaseAndRefundAreFedOnce(
        _ backend: TestBackend
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try ReconciliationEndToEndTests.stubKey(in: directory)

        try await PipelineHarness.run(backend) { pipeline in
            let store = pipeline.stub.storeKit
            func known(_ transaction: StubTransaction) {
                pipeline.stub.serverAPI.register(
                    signedTransaction: store.signTransaction(transaction), transactionID: transaction.transactionID,
                    environment: .sandbox, customerID: "one-apple-account")
            }
            // Given 100 coins credited to "keeper" for a purchase it posted
            var posted = StubTransaction(transactionID: "9300000001", productID: "com.example.coins100")
            known(posted)
            let (_, id) = try await pipeline.submit(account: "keeper", signedTransaction: store.signTransaction(posted))
            #expect(try await pipeline.finalStatus(try #require(id))["status"] as? String == "credited")
            let token = try #require(
                try await OrderRepository(pipeline.database).accountToken(creditedFor: "9300000001", now: Date())
            ).token

            // And, at Apple, under the same Apple account: that purchase refunded (the
            // notification never arrived), a purchase carrying keeper's token never posted,
            // one carrying another account's token, and one with no token at all
            posted.revocationDate = Date()
            known(posted)
            var missed = StubTransaction(transactionID: "9300000002", productID: "com.example.coins500")
            missed.appAccountToken = token
            var others = StubTransaction(transactionID: "9300000003", productID: "com.example.coins100")
            others.appAccountToken = "0f0e0d0c-0b0a-4908-8706-050403020100"
            let untied = StubTransaction(transactionID: "9300000004", productID: "com.example.coins100")
            for transaction in [missed, others, untied] { known(transaction) }

            // When a dry run compares keeper's purchases with Apple's history
            let dry = try await ReconciliationEndToEndTests.reconcile(
                pipeline, ["--account", "keeper", "--dry-run"], key: key)
            #expect(dry.status == 0, "\(dry.output)")

            // Then it names the two that are keeper's and the two that are not, storing nothing
            #expect(dry.report["examined"] as? Int == 4)
            #expect(
                Self.findings(dry.report, "missing") == [
                    "9300000001": "revoked_at_apple", "9300000002": "not_recorded",
                ])
            #expect(
                Self.findings(dry.report, "unattributed") == [
                    "9300000003": "another_accounts_token", "9300000004": "no_tie_to_account",
                ])
            #expect(dry.report["fed"] as? Int == 0)
            #expect(try await pipeline.balance("keeper") == 100)

            // And a run feeds keeper's two: the refund taken back once, the purchase credited once
            let run = try await ReconciliationEndToEndTests.reconcile(pipeline, ["--account", "keeper"], key: key)
            #expect(run.status == 0, "\(run.output)")
            #expect(run.report["fed"] as? Int == 2)
            let settled = await eventually(timeout: .seconds(30)) {
                (try? await pipeline.balance("keeper")) == 500
            }
            #expect(settled)
            let ledger = try await LedgerRepository(pipeline.database).account(id: "keeper")?.ledger ?? []
            #expect(ledger.map(\.amount).sorted() == [-100, 100, 500])

            // And a second run finds nothing of keeper's missing; the books balance
            let again = try await ReconciliationEndToEndTests.reconcile(pipeline, ["--account", "keeper"], key: key)
            #expect(again.status == 0, "\(again.output)")
            #expect(Self.findings(again.report, "missing").isEmpty && again.report["fed"] as? Int == 0)
            #expect(Self.findings(again.report, "unattributed").count == 2)
            #expect(try await pipeline.balance("keeper") == 500)
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)
        }
    }

    @Test func unknownAccountsAndMisusedOptionsAreRefusedByName() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try ReconciliationEndToEndTests.stubKey(in: directory)
        var environment = ["IAP_DB_PATH": directory.file("iap.sqlite")]
        let windowed = try await IAPProcess.run(
            ["reconcile", "--account", "a", "--since", "1d"], environment: environment)
        #expect(windowed.status != 0 && windowed.output.contains("--since and --until do not apply"))
        let empty = try await IAPProcess.run(["reconcile", "--account", ""], environment: environment)
        #expect(empty.status != 0 && empty.output.contains("--account must be an account id"), "\(empty.output)")
        let keyless = try await IAPProcess.run(["reconcile", "--account", "a"], environment: environment)
        #expect(keyless.status != 0 && keyless.output.contains("IAP_APPSTORE_PRIVATE_KEY"), "\(keyless.output)")
        environment["IAP_APPSTORE_PRIVATE_KEY"] = key
        environment["IAP_APPSTORE_KEY_ID"] = StubServerAPIConfiguration.developmentKeyID
        environment["IAP_APPSTORE_ISSUER_ID"] = StubServerAPIConfiguration.developmentIssuerID
        environment["IAP_APPSTORE_API_URL"] = "http://127.0.0.1:1"
        let unknown = try await IAPProcess.run(["reconcile", "--account", "nobody"], environment: environment)
        #expect(unknown.status == 1 && unknown.output.contains("no account nobody here"), "\(unknown.output)")
    }

    /// A report's findings of `member`, transaction id to reason.
    static func findings(_ report: [String: Any], _ member: String) -> [String: String] {
        let list = report[member] as? [[String: Any]] ?? []
        return Dictionary(
            list.compactMap { item in
                (item["transaction_id"] as? String).map { ($0, item["reason"] as? String ?? "") }
            }, uniquingKeysWith: { first, _ in first })
    }
}
