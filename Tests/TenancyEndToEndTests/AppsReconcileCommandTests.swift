import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// `iap reconcile --app` (issue 30): an app's reconciliation asks with that app's App Store
/// key, within its own call budgets, and is recorded as its own run; an app the file does not
/// list is refused by name.
@Suite struct AppsReconcileCommandTests {
    @Test func eachAppReconcilesWithItsOwnKeyBudgetsAndRuns() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let racerBundle = "com.example.racer"
        let stub = StubAppStore(configuration: StubStoreConfiguration(bundleID: racerBundle))
        let ports = Ports()
        let server = RunningService(makeStubStoreApplication(store: stub, port: 0) { await ports.set($0) })
        let stubURL = "http://127.0.0.1:\(await ports.value)"
        // The stub's development key, as ReconciliationEndToEndTests writes it.
        let key = directory.file("AuthKey_STUB.p8")
        try StubServerAPIConfiguration.developmentPrivateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
        // Only the racing game has an App Store key: the puzzle game's settings are silent.
        let apps = directory.file("apps.yaml")
        try """
        apps:
          - id: puzzle
            api_tokens: [puzzle-backend-token-0001]
          - id: racer
            api_tokens: [racer-backend-token-00001]
            apple:
              bundle_id: \(racerBundle)
              server_api:
                key_id: \(StubServerAPIConfiguration.developmentKeyID)
                issuer_id: \(StubServerAPIConfiguration.developmentIssuerID)
                private_key: \(key)
        """.write(toFile: apps, atomically: true, encoding: .utf8)
        let environment = [
            "IAP_APPS": apps, "IAP_DB_PATH": directory.file("iap.sqlite"),
            "IAP_APPSTORE_API_URL": stubURL, "IAP_APPSTORE_API_SANDBOX_URL": stubURL + "/sandbox",
        ]

        let unknown = try await IAPProcess.run(["reconcile", "--app", "chess"], environment: environment)
        #expect(unknown.status != 0 && unknown.output.contains("no app 'chess' in IAP_APPS"), "\(unknown.output)")
        // The default app has no key of its own: it is not lent racer's.
        let keyless = try await IAPProcess.run(["reconcile", "--since", "1h"], environment: environment)
        #expect(keyless.status != 0 && keyless.output.contains("IAP_APPSTORE_PRIVATE_KEY"), "\(keyless.output)")

        let racer = try await IAPProcess.run(
            ["reconcile", "--app", "racer", "--since", "1h"], environment: environment)
        #expect(racer.status == 0, "\(racer.output)")
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let (runs, budgets) = try await database.snapshot { db in
            (
                try await db.rows("SELECT app FROM reconciliation_runs").map { try $0.get("app", as: String.self) },
                try await db.rows("SELECT name FROM call_budgets").map { try $0.get("name", as: String.self) }
            )
        }
        #expect(runs == ["racer"])
        #expect(!budgets.isEmpty && budgets.allSatisfy { $0.hasPrefix("racer/") }, "\(budgets)")
        await server.stop()
    }
}
