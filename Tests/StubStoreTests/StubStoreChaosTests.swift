import Foundation
import Hummingbird
import HummingbirdTesting
import StubStore
import Testing

/// The knobs that make the stub slow and flaky, for failure tests and benchmarks.
@Suite struct StubStoreChaosTests {
    let receiptData = coinsReceipt().encoded(signingKey: StubStoreConfiguration.developmentSigningKey)

    func statuses(_ configuration: StubStoreConfiguration, requests: Int) async throws -> [Int] {
        let app = makeStubStoreApplication(configuration: configuration, port: 0)
        return try await app.test(.router) { client async throws in
            var statuses: [Int] = []
            for _ in 0..<requests {
                let status = try await client.execute(
                    uri: "/verifyReceipt", method: .post, body: verifyBody(receiptData)
                ) { $0.status.code }
                statuses.append(status)
            }
            return statuses
        }
    }

    @Test func errorRate1_answersEveryRequest503() async throws {
        let statuses = try await statuses(.init(errorRate: 1, seed: 7), requests: 5)
        #expect(statuses == [503, 503, 503, 503, 503])
    }

    @Test func errorRate_withTheSameSeed_failsTheSameRequests() async throws {
        // Given two stores with the same seed and half their answers failing
        let first = try await statuses(.init(errorRate: 0.5, seed: 42), requests: 40)
        let second = try await statuses(.init(errorRate: 0.5, seed: 42), requests: 40)
        // Then they fail the same requests, and some of each kind
        #expect(first == second)
        #expect(first.contains(503))
        #expect(first.contains(200))
    }

    @Test func timeoutRate1_hangsThenAnswers503_andCountsIt() async throws {
        let store = StubAppStore(configuration: .init(timeoutRate: 1, hangDuration: .milliseconds(200), seed: 3))
        let app = makeStubStoreApplication(store: store, port: 0)
        try await app.test(.router) { client async throws in
            let started = ContinuousClock.now
            let status = try await client.execute(
                uri: "/verifyReceipt", method: .post, body: verifyBody(receiptData)
            ) { $0.status.code }
            #expect(status == 503)
            #expect(ContinuousClock.now - started >= .milliseconds(200))
        }
        #expect(store.stats.production.hung == 1)
        #expect(store.stats.production.statuses.isEmpty)
    }

    @Test func latency_delaysEveryAnswer() async throws {
        let app = makeStubStoreApplication(configuration: .init(latency: .milliseconds(150)), port: 0)
        try await app.test(.router) { client async throws in
            let started = ContinuousClock.now
            #expect(try await client.status(receiptData) == 0)
            #expect(ContinuousClock.now - started >= .milliseconds(150))
        }
    }
}
