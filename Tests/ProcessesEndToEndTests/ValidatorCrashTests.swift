import Broker
import Database
import DatabaseSQLite
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

@Suite struct ValidatorCrashTests {
    @Test(arguments: TestBackend.allCases) func killingTheValidatorBetweenConsumingAndAckingLosesNothingAndCreditsOnce(
        _ backend: TestBackend
    ) async throws {
        // Given a slow verify endpoint, so that a validator holds its messages for a while
        let slowStub = StubStoreConfiguration(bundleID: PipelineHarness.bundleID, latency: .milliseconds(1500))
        try await PipelineHarness.run(backend, stub: slowStub, runsValidator: false) { pipeline in
            let count = 20
            var ids: [String] = []
            for index in 0..<count {
                let data = pipeline.receipt(transactions: [("crash-\(index)", "com.example.coins100")])
                let (status, id) = try await pipeline.submit(account: "survivor", receiptData: data)
                #expect(status == 202)
                ids.append(try #require(id))
            }
            let environment = [
                "IAP_AMQP_URL": pipeline.broker.url,
                "IAP_QUEUE_PREFIX": pipeline.broker.prefix,
                "IAP_VERIFY_URL": "http://127.0.0.1:\(pipeline.stubPort)/verifyReceipt",
                "IAP_VERIFY_SANDBOX_URL": "http://127.0.0.1:\(pipeline.stubPort)/sandbox/verifyReceipt",
                "IAP_BUNDLE_ID": PipelineHarness.bundleID,
                "IAP_LOG_LEVEL": "warning",
            ]
            let connection = try await pipeline.broker.connect()
            defer { Task { await connection.close() } }

            // When a validator process takes every message and is killed mid-verification
            let first = try IAPProcess.start(["validator", "--concurrency", "50"], environment: environment)
            let holding = await eventually(timeout: .seconds(60)) {
                let ready = try? await connection.queueStatus(pipeline.topology.validateQueue).messages
                return ready == 0 && pipeline.stub.stats.production.requests >= count
            }
            #expect(holding, "the first validator should have taken all \(count) messages")
            first.crash()
            #expect(try await ReceiptRepository(pipeline.database).receiptStatusCounts()[.credited, default: 0] == 0)

            // Then another validator gets them all back and each is credited exactly once
            let second = try IAPProcess.start(["validator", "--concurrency", "50"], environment: environment)
            defer { second.crash() }
            let allCredited = await eventually(timeout: .seconds(60)) {
                (try? await ReceiptRepository(pipeline.database).receiptStatusCounts()[.credited, default: 0]) == count
            }
            #expect(allCredited)
            #expect(try await pipeline.balance("survivor") == count * 100)
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)

            // The validator process declared the default retry tiers too; remove them.
            await pipeline.broker.cleanUp(
                PipelineTopology(prefix: pipeline.broker.prefix).topology, try await pipeline.broker.connect())
        }
    }
}
