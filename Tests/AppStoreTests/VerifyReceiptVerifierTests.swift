import AppStore
import Foundation
import HTTPClient
import PipelineCore
import PipelineTesting
import StubStore
import Testing

/// The verifier against the real stub store over HTTP on loopback, with the real libcurl client.
@Suite struct VerifyReceiptVerifierTests {
    @Test func validProductionReceipt_isValid() async throws {
        try await StubStoreFixture.run { stub in
            // When a production receipt is verified
            let outcome = try await stub.verifier().verify(submission(stub.receiptData(coins())))
            // Then it is valid with its transaction, after one request to production
            #expect(
                outcome
                    == .valid(
                        environment: "Production",
                        transactions: [
                            VerifiedTransaction(
                                transactionID: "1000000000000001", originalTransactionID: "1000000000000001",
                                productID: "com.example.coins100", quantity: 1,
                                purchaseDate: Date(timeIntervalSince1970: 1_700_000_000))
                        ]))
            #expect(stub.store.stats.production.requests == 1)
            #expect(stub.store.stats.sandbox.requests == 0)
        }
    }

    @Test func sandboxReceipt_isValidThroughThe21007Fallback() async throws {
        try await StubStoreFixture.run { stub in
            let outcome = try await stub.verifier().verify(submission(stub.receiptData(coins(.sandbox))))
            guard case .valid(let environment, let transactions) = outcome else {
                Issue.record("expected valid, got \(outcome)")
                return
            }
            #expect(environment == "Sandbox")
            #expect(transactions.map(\.transactionID) == ["1000000000000001"])
            // Production said 21007 once, then the sandbox said 0 once
            let stats = stub.store.stats
            #expect(stats.production.requests == 1)
            #expect(stats.production.count(status: 21007) == 1)
            #expect(stats.sandbox.requests == 1)
            #expect(stats.sandbox.count(status: 0) == 1)
        }
    }

    @Test func forgedReceipt_isRejected21003() async throws {
        try await StubStoreFixture.run { stub in
            let forged = coins().encoded(signingKey: "a jailbreak tool's key")
            let outcome = try await stub.verifier().verify(submission(forged))
            #expect(outcome == .rejected(reason: "apple_status_21003"))
        }
    }

    @Test func garbageReceipt_isTransient21002() async throws {
        // Apple documents 21002 as "malformed, or a temporary issue: try again"
        try await StubStoreFixture.run { stub in
            let outcome = try await stub.verifier().verify(submission("bm90IGEgcmVjZWlwdA=="))
            #expect(outcome == .transient(reason: "apple_status_21002"))
        }
    }

    @Test func otherAppsReceipt_isRejectedBundleMismatch() async throws {
        try await StubStoreFixture.run { stub in
            let receipt = stub.receiptData(coins(bundleID: "com.other.app"))
            let outcome = try await stub.verifier().verify(submission(receipt))
            #expect(outcome == .rejected(reason: "bundle_mismatch"))
        }
    }

    @Test func receiptFailingTransiently_isTransientThenValid() async throws {
        try await StubStoreFixture.run { stub in
            let verifier = try stub.verifier()
            let receipt = submission(stub.receiptData(coins(failFirst: 2)))
            // The first two attempts meet Apple's retryable internal error
            #expect(await verifier.verify(receipt) == .transient(reason: "apple_status_21100"))
            #expect(await verifier.verify(receipt) == .transient(reason: "apple_status_21100"))
            // And the third verifies
            guard case .valid(_, let transactions) = await verifier.verify(receipt) else {
                Issue.record("expected valid on the third attempt")
                return
            }
            #expect(transactions.count == 1)
            #expect(stub.store.stats.production.count(status: 21100) == 2)
        }
    }

    @Test func unavailableStub_isTransient503() async throws {
        try await StubStoreFixture.run(.init(errorRate: 1, seed: 1)) { stub in
            let outcome = try await stub.verifier().verify(submission(stub.receiptData(coins())))
            #expect(outcome == .transient(reason: "http_503"))
            #expect(stub.store.stats.production.unavailable == 1)
        }
    }

    @Test func stubSlowerThanTheTimeout_isTransientTimeout() async throws {
        // Bounds far apart: a loaded 2-core machine stretches a 300 ms timeout to seconds.
        try await StubStoreFixture.run(.init(latency: .seconds(10), seed: 1)) { stub in
            let started = ContinuousClock.now
            let outcome = try await stub.verifier(timeout: .milliseconds(300)).verify(
                submission(stub.receiptData(coins())))
            #expect(outcome == .transient(reason: "timeout"))
            #expect(ContinuousClock.now - started < .seconds(8))
        }
    }

    @Test func hangingStub_isTransientTimeout() async throws {
        try await StubStoreFixture.run(.init(timeoutRate: 1, hangDuration: .seconds(5), seed: 1)) { stub in
            // 1 s, not less: on a loaded machine the request may not reach the stub sooner.
            let outcome = try await stub.verifier(timeout: .seconds(1)).verify(submission(stub.receiptData(coins())))
            #expect(outcome == .transient(reason: "timeout"))
            #expect(await eventually(timeout: .seconds(5)) { stub.store.stats.production.hung == 1 })
        }
    }

    @Test func refusedPort_isTransientConnectionRefused() async throws {
        let closed = try ClosedPort()
        let client = try CurlHTTPClient()
        let verifier = try VerifyReceiptVerifier(
            configuration: .init(
                bundleID: "com.example.game", productionURL: "http://127.0.0.1:\(closed.port)/verifyReceipt",
                sandboxURL: "http://127.0.0.1:\(closed.port)/sandbox/verifyReceipt"),
            client: client)
        let outcome = await verifier.verify(submission(coins().encoded(signingKey: "k")))
        await client.shutdown()
        #expect(outcome == .transient(reason: "connection_refused"))
    }

    @Test func sharedSecret_wrongIsRejected21004_rightIsValid() async throws {
        try await StubStoreFixture.run(.init(sharedSecret: "s3cret", seed: 1)) { stub in
            let receipt = submission(stub.receiptData(coins()))
            #expect(
                try await stub.verifier(sharedSecret: "guess").verify(receipt)
                    == .rejected(reason: "apple_status_21004"))
            #expect(try await stub.verifier().verify(receipt) == .rejected(reason: "apple_status_21004"))
            guard case .valid = try await stub.verifier(sharedSecret: "s3cret").verify(receipt) else {
                Issue.record("expected valid with the right secret")
                return
            }
        }
    }

    /// The request body is written by hand (`JSONText`): a secret that needs escaping arrives as it was.
    @Test func aSharedSecretWithQuotesAndBackslashesArrivesIntact() async throws {
        let secret = "s3\"cr\\et/+\u{1}é"
        try await StubStoreFixture.run(.init(sharedSecret: secret, seed: 1)) { stub in
            let receipt = submission(stub.receiptData(coins()))
            guard case .valid = try await stub.verifier(sharedSecret: secret).verify(receipt) else {
                Issue.record("expected valid with the secret as configured")
                return
            }
            #expect(
                try await stub.verifier(sharedSecret: "s3\"cr\\et/+").verify(receipt)
                    == .rejected(reason: "apple_status_21004"))
        }
    }

    @Test func subscriptionWithRefundedRenewal_carriesExpiryAndCancellation() async throws {
        try await StubStoreFixture.run { stub in
            // Given a subscription bought and renewed, the renewal refunded
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            let month: TimeInterval = 30 * 86_400
            let receipt = StubReceipt(
                bundleID: "com.example.game",
                transactions: [
                    .init(transactionID: "20", productID: "vip", purchaseDate: start, expiresDate: start + month),
                    .init(
                        transactionID: "21", originalTransactionID: "20", productID: "vip",
                        purchaseDate: start + month, expiresDate: start + 2 * month,
                        cancellationDate: start + month + 3600),
                ])
            // When it is verified
            let outcome = try await stub.verifier().verify(submission(stub.receiptData(receipt)))
            // Then both periods come back once each, with expiry and refund
            guard case .valid(_, let transactions) = outcome else {
                Issue.record("expected valid, got \(outcome)")
                return
            }
            #expect(transactions.map(\.transactionID) == ["20", "21"])
            #expect(transactions.map(\.originalTransactionID) == ["20", "20"])
            #expect(transactions.last?.expiresDate == start + 2 * month)
            #expect(transactions.last?.cancellationDate == start + month + 3600)
            #expect(transactions.first?.cancellationDate == nil)
        }
    }

    @Test func signedTransactionOnly_isRejectedAsUnsupported_withoutARequest() async throws {
        try await StubStoreFixture.run { stub in
            let outcome = try await stub.verifier().verify(
                submission(nil, signedTransaction: "eyJhbGciOiJFUzI1NiJ9.e30.sig"))
            #expect(outcome == .rejected(reason: VerifyReceiptVerifier.signedTransactionUnsupported))
            #expect(outcome == .rejected(reason: "unsupported: signed_transaction needs StoreKit 2 verification"))
            #expect(stub.store.stats.production.requests == 0)
        }
    }

    @Test func manyConcurrentReceipts_allVerify() async throws {
        try await StubStoreFixture.run(.init(latency: .milliseconds(20), seed: 1)) { stub in
            // Counted, not timed: the timeout only has to outlast a loaded machine.
            let verifier = try stub.verifier(timeout: .seconds(60))
            let receipts = (0..<200).map { stub.receiptData(coins(transactionID: "5000\($0)")) }
            let valid = await withTaskGroup(of: Bool.self) { group in
                for receipt in receipts {
                    group.addTask {
                        if case .valid(_, let transactions) = await verifier.verify(submission(receipt)) {
                            return transactions.count == 1
                        }
                        return false
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(valid == 200)
            #expect(stub.store.stats.production.count(status: 0) == 200)
        }
    }

    @Test func configuration_refusesURLsThatAreNotHTTP() async throws {
        let client = try CurlHTTPClient()
        #expect(throws: VerifyReceiptConfigurationError.self) {
            try VerifyReceiptVerifier(
                configuration: .init(bundleID: "com.example.game", productionURL: "ftp://example.com/verifyReceipt"),
                client: client)
        }
        #expect(throws: VerifyReceiptConfigurationError.self) {
            try VerifyReceiptVerifier(configuration: .init(bundleID: ""), client: client)
        }
        let description = VerifyReceiptVerifier.Configuration(bundleID: "b", sharedSecret: "hunter2").description
        #expect(!description.contains("hunter2"))
        await client.shutdown()
    }
}
