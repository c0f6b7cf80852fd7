import AppStore
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

/// Apple's rate limits hold across processes: three `iap validator` processes confirm 1,000
/// StoreKit 2 purchases with Get Transaction Info (50 calls a second in production), and the
/// stub store, counting every call per second and answering `429` past Apple's limit as
/// Apple does, never sees a second over 50, nor answers one `429`. Each purchase is credited
/// once. Three processes booking turns for 20-odd seconds want the machine alone
/// (`IAP_TEST_ALONE=1`), so that the clock jitter between booking and arrival stays small.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct AloneServerAPIBudgetTests {
    static let count = 1_000

    @Test(arguments: TestBackend.allCases) func threeValidatorsNeverCallGetTransactionInfoOver50PerSecond(
        _ backend: TestBackend
    ) async throws {
        var stubConfiguration = StubStoreConfiguration(bundleID: PipelineHarness.bundleID)
        stubConfiguration.serverAPI.enforcesRateLimits = true
        try await PipelineHarness.run(backend, stub: stubConfiguration, runsValidator: false) { pipeline in
            // Given 1,000 purchases Apple's Server API knows, each submitted by its app
            var ids: [String] = []
            for index in 0..<Self.count {
                let transaction = StubTransaction(
                    transactionID: String(4_000_000_000_000_000 + index), productID: "com.example.coins100")
                let signed = pipeline.stub.storeKit.signTransaction(transaction)
                pipeline.stub.serverAPI.register(
                    signedTransaction: signed, transactionID: transaction.transactionID, environment: .production)
                let (status, id) = try await pipeline.submit(account: "budget-\(index % 20)", signedTransaction: signed)
                #expect(status == 202)
                ids.append(try #require(id))
            }

            // When three validator processes confirm them with Apple, sharing the budget through the store
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let keyPath = directory.file("AuthKey.p8")
            let rootPath = directory.file("root.der")
            try StubServerAPIConfiguration.developmentPrivateKeyPEM.write(
                toFile: keyPath, atomically: true, encoding: .utf8)
            try Data(pipeline.stub.storeKit.rootDER).write(to: URL(fileURLWithPath: rootPath))
            let stubURL = "http://127.0.0.1:\(pipeline.stubPort)"
            let environment = pipeline.databaseEnvironment.merging([
                "IAP_AMQP_URL": pipeline.broker.url, "IAP_QUEUE_PREFIX": pipeline.broker.prefix,
                "IAP_BUNDLE_ID": PipelineHarness.bundleID, "IAP_APPSTORE_ENVIRONMENT": "Sandbox",
                "IAP_APPLE_ROOT_CA": rootPath, "IAP_APPSTORE_PRIVATE_KEY": keyPath,
                "IAP_APPSTORE_KEY_ID": StubServerAPIConfiguration.developmentKeyID,
                "IAP_APPSTORE_ISSUER_ID": StubServerAPIConfiguration.developmentIssuerID,
                "IAP_APPSTORE_API_URL": stubURL, "IAP_APPSTORE_API_SANDBOX_URL": "\(stubURL)/sandbox",
                "IAP_VERIFY_URL": "\(stubURL)/verifyReceipt",
                "IAP_VERIFY_SANDBOX_URL": "\(stubURL)/sandbox/verifyReceipt",
                "IAP_LOG_LEVEL": "warning",
            ]) { $1 }
            let started = ContinuousClock.now
            let validators = try (0..<3).map { _ in
                try IAPProcess.start(["validator", "--concurrency", "128"], environment: environment)
            }
            defer { for validator in validators { validator.crash() } }
            let allCredited = await eventually(timeout: .seconds(180)) {
                (try? await ReceiptRepository(pipeline.database).receiptStatusCounts()[.credited, default: 0])
                    == Self.count
            }
            let elapsed = ContinuousClock.now - started

            // Then every purchase is credited once, and Apple's limit held in every second
            #expect(allCredited)
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)
            #expect(try await pipeline.balance("budget-0") == Self.count / 20 * 100)
            let stats = pipeline.stub.serverAPI.stats
            let perSecond = stats.callsPerSecond["production/getTransactionInfo"] ?? [:]
            #expect(perSecond.values.reduce(0, +) == Self.count, "each purchase asked Apple once")
            #expect(
                stats.busiestSecond("production/getTransactionInfo") <= 50, "\(perSecond.sorted { $0.key < $1.key })")
            #expect(stats.production.count(status: 429) == 0)
            // At 45 calls a second (90 % of 50), 1,000 calls take at least 22 s.
            #expect(elapsed > .seconds(20))
            let usage = try await CallBudgetRepository(pipeline.database).usage(
                now: Int64(Date().timeIntervalSince1970 * 1_000_000), window: 3600)
            let budget = try #require(usage.first { $0.name.hasSuffix("/production/getTransactionInfo") })
            // Turns booked: one per call, and a few given up by callers that woke too late for theirs
            #expect(budget.calls >= Self.count && budget.calls < Self.count + 100)
            #expect(budget.busiestSecond <= 45)
            print(
                "budget: \(Self.count) calls in \(elapsed), busiest second at the stub \(stats.busiestSecond("production/getTransactionInfo")), in the store \(budget.busiestSecond)"
            )
        }
    }
}
