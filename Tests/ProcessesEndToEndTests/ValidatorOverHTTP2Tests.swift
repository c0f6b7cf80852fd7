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

/// `iap validator` verifying as it would against Apple: over TLS with HTTP/2 (Debian's nginx in
/// front of the stub store), trusting the endpoint's certificate through `IAP_VERIFY_CA_FILE`.
@Suite(.enabled(if: NginxTLSProxy.isAvailable, "needs nginx and openssl (scripts/setup.sh --tests)"))
struct ValidatorOverHTTP2Tests {
    @Test func receiptsVerifiedOverHTTP2_creditedOnce() async throws {
        let stub = StubStoreConfiguration(bundleID: PipelineHarness.bundleID, latency: .milliseconds(100))
        try await PipelineHarness.run(.sqlite, stub: stub, runsValidator: false) { pipeline in
            // Given: receipts waiting, and the stub's verifyReceipt behind an HTTP/2 proxy
            let count = 40
            for index in 0..<count {
                let data = pipeline.receipt(transactions: [("h2-\(index)", "com.example.coins100")])
                let (status, _) = try await pipeline.submit(account: "player-h2", receiptData: data)
                #expect(status == 202)
            }
            let proxy = try NginxTLSProxy(upstreamPort: pipeline.stubPort)
            defer { proxy.stop() }
            let environment = Self.validatorEnvironment(pipeline, through: proxy, trusting: true)

            // When: a validator process verifies them
            let validator = try IAPProcess.start(["validator", "--concurrency", "64"], environment: environment)
            defer { validator.crash() }

            // Then: each is credited once, every verification went over HTTP/2
            let allCredited = await eventually(timeout: .seconds(60)) {
                (try? await ReceiptRepository(pipeline.database).receiptStatusCounts()[.credited, default: 0]) == count
            }
            #expect(allCredited)
            #expect(try await pipeline.balance("player-h2") == count * 100)
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)
            let served = await proxy.requests(awaiting: count)
            #expect(served.count == count)
            #expect(Set(served.map(\.httpProtocol)) == ["HTTP/2.0"])

            await pipeline.broker.cleanUp(
                PipelineTopology(prefix: pipeline.broker.prefix).topology, try await pipeline.broker.connect())
        }
    }

    @Test func untrustedEndpoint_isRetriedNotRejected() async throws {
        try await PipelineHarness.run(.sqlite, runsValidator: false) { pipeline in
            // Given: the proxy's certificate is not trusted (no IAP_VERIFY_CA_FILE)
            let data = pipeline.receipt(transactions: [("h2-untrusted", "com.example.coins100")])
            let (status, _) = try await pipeline.submit(account: "player-h2u", receiptData: data)
            #expect(status == 202)
            let proxy = try NginxTLSProxy(upstreamPort: pipeline.stubPort)
            defer { proxy.stop() }
            let environment = Self.validatorEnvironment(pipeline, through: proxy, trusting: false)

            // When: a validator tries to verify through it
            let validator = try IAPProcess.start(["validator"], environment: environment)
            defer { validator.crash() }
            let retrying = await eventually(timeout: .seconds(30)) {
                ((try? await ReceiptRepository(pipeline.database).receiptStatusCounts()[.retrying, default: 0]) ?? 0)
                    == 1
            }

            // Then: a certificate problem is the operator's to fix, so the receipt waits for
            // another try; nothing reached the endpoint, and nothing was credited or refused
            #expect(retrying)
            #expect(pipeline.stub.stats.production.requests == 0)
            #expect(proxy.requests().isEmpty)
            #expect(try await pipeline.balance("player-h2u") == 0)

            await pipeline.broker.cleanUp(
                PipelineTopology(prefix: pipeline.broker.prefix).topology, try await pipeline.broker.connect())
        }
    }

    /// A validator's settings for verifying through `proxy`, trusting its certificate or not.
    private static func validatorEnvironment(
        _ pipeline: PipelineHarness, through proxy: NginxTLSProxy, trusting: Bool
    ) -> [String: String] {
        [
            "IAP_AMQP_URL": pipeline.broker.url, "IAP_QUEUE_PREFIX": pipeline.broker.prefix,
            "IAP_VERIFY_URL": proxy.url + "/verifyReceipt",
            "IAP_VERIFY_SANDBOX_URL": proxy.url + "/sandbox/verifyReceipt",
            "IAP_VERIFY_CA_FILE": trusting ? proxy.certificateFile : "",
            "IAP_BUNDLE_ID": PipelineHarness.bundleID, "IAP_LOG_LEVEL": "warning",
        ]
    }
}
