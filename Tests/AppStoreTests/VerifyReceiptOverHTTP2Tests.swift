import AppStore
import Foundation
import HTTPClient
import PipelineCore
import PipelineTesting
import StubStore
import Testing

/// verifyReceipt as Apple serves it: over TLS with HTTP/2, here Debian's nginx in front of the
/// stub store, which answers slowly, as Apple does (100-300 ms).
@Suite(.enabled(if: NginxTLSProxy.isAvailable, "needs nginx and openssl (scripts/setup.sh --tests)"))
struct VerifyReceiptOverHTTP2Tests {
    @Test func slowEndpoint_verificationsShareOneHTTP2Connection() async throws {
        try await StubStoreFixture.run(.init(latency: .milliseconds(250), seed: 1)) { stub in
            // Given: the stub behind an HTTP/2 proxy, and a verifier allowed one connection
            let proxy = try NginxTLSProxy(upstreamPort: stub.port)
            defer { proxy.stop() }
            let client = try CurlHTTPClient(
                configuration: .init(maxConnectionsPerHost: 1, caFile: proxy.certificateFile))
            let verifier = try VerifyReceiptVerifier(
                configuration: .init(
                    bundleID: "com.example.game", productionURL: proxy.url + "/verifyReceipt",
                    sandboxURL: proxy.url + "/sandbox/verifyReceipt"),
                client: client)

            // When: 100 receipts are verified at once
            let outcomes = await withTaskGroup(of: VerificationOutcome.self) { group in
                for index in 0..<100 {
                    let receipt = stub.receiptData(coins(transactionID: "\(2_000_000_000_000_000 + index)"))
                    group.addTask { await verifier.verify(submission(receipt)) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            await client.shutdown()

            // Then: every one is valid, each asked once, all over one HTTP/2 connection
            #expect(outcomes.count == 100)
            #expect(outcomes.allSatisfy { if case .valid = $0 { true } else { false } })
            #expect(stub.store.stats.production.requests == 100)
            let served = await proxy.requests(awaiting: 100)
            #expect(served.count == 100)
            #expect(Set(served.map(\.httpProtocol)) == ["HTTP/2.0"])
            #expect(Set(served.map(\.connection)).count == 1)
        }
    }
}
