import Foundation
import Hummingbird
import HummingbirdTesting
import StubStore
import Synchronization
import Testing

/// Apple's `verifyReceipt` protocol, as the stub speaks it.
@Suite struct StubStoreProtocolTests {
    let configuration = StubStoreConfiguration(signingKey: "test-key", seed: 1)

    func app(_ configuration: StubStoreConfiguration? = nil) -> some ApplicationProtocol {
        makeStubStoreApplication(configuration: configuration ?? self.configuration, port: 0)
    }

    @Test func validProductionReceipt_answersStatus0WithAppleShapedReceipt() async throws {
        let receiptData = coinsReceipt().encoded(signingKey: "test-key")
        try await app().test(.router) { client async throws in
            // When a production receipt is verified at production
            let body = try await client.verify(body: verifyBody(receiptData))
            // Then it is valid, with strings where Apple writes strings
            #expect(body["status"] as? Int == 0)
            #expect(body["environment"] as? String == "Production")
            #expect(body["latest_receipt_info"] == nil)  // no subscriptions
            let receipt = try #require(body["receipt"] as? [String: Any])
            #expect(receipt["bundle_id"] as? String == "com.example.game")
            #expect(receipt["receipt_type"] as? String == "Production")
            let inApp = try #require(receipt["in_app"] as? [[String: Any]])
            #expect(inApp.count == 1)
            #expect(inApp.first?["transaction_id"] as? String == "1000000000000001")
            #expect(inApp.first?["original_transaction_id"] as? String == "1000000000000001")
            #expect(inApp.first?["product_id"] as? String == "com.example.coins100")
            #expect(inApp.first?["quantity"] as? String == "2")
            #expect(inApp.first?["purchase_date_ms"] as? String == "1700000123456")
            #expect(inApp.first?["purchase_date"] as? String == "2023-11-14 22:15:23 Etc/GMT")
            #expect(inApp.first?["purchase_date_pst"] as? String == "2023-11-14 14:15:23 America/Los_Angeles")
            #expect(inApp.first?["expires_date_ms"] == nil)
        }
    }

    @Test func subscriptionReceipt_answersLatestReceiptInfoAndHonoursExcludeOld() async throws {
        // Given a subscription bought, renewed once, and the renewal refunded
        let day: TimeInterval = 86_400
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let receipt = StubReceipt(
            bundleID: "com.example.game",
            transactions: [
                .init(
                    transactionID: "20", originalTransactionID: "20", productID: "vip", purchaseDate: start,
                    expiresDate: start + 30 * day, webOrderLineItemID: "500"),
                .init(
                    transactionID: "21", originalTransactionID: "20", productID: "vip",
                    purchaseDate: start + 30 * day, expiresDate: start + 60 * day,
                    cancellationDate: start + 31 * day, cancellationReason: "1", webOrderLineItemID: "501"),
            ])
        let receiptData = receipt.encoded(signingKey: "test-key")
        try await app().test(.router) { client async throws in
            // When it is verified with and without exclude-old-transactions
            let all = try await client.verify(body: verifyBody(receiptData))
            let latestOnly = try await client.verify(body: verifyBody(receiptData, excludeOld: true))
            // Then latest_receipt_info lists renewals newest first, the refund included
            let latest = try #require(all["latest_receipt_info"] as? [[String: Any]])
            #expect(latest.map { $0["transaction_id"] as? String } == ["21", "20"])
            #expect(latest.first?["cancellation_date_ms"] as? String == "1702678400000")
            #expect(latest.first?["cancellation_reason"] as? String == "1")
            #expect(latest.first?["expires_date_ms"] as? String == "1705184000000")
            #expect(latest.first?["web_order_line_item_id"] as? String == "501")
            #expect(all["latest_receipt"] as? String == receiptData)
            #expect((all["pending_renewal_info"] as? [[String: Any]])?.count == 1)
            // And exclude-old-transactions keeps only the latest renewal, in_app untouched
            let onlyLatest = try #require(latestOnly["latest_receipt_info"] as? [[String: Any]])
            #expect(onlyLatest.map { $0["transaction_id"] as? String } == ["21"])
            let inApp = (latestOnly["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]]
            #expect(inApp?.count == 2)
        }
    }

    @Test func garbage_answers21002_and_unreadableBody_answers21000() async throws {
        try await app().test(.router) { client async throws in
            #expect(try await client.status("%%% not base64 %%%") == 21002)
            #expect(try await client.status(Data("MIIT...a real PKCS7?".utf8).base64EncodedString()) == 21002)
            #expect(try await client.status(nil) == 21002)
            let notJSON = try await client.verify(body: ByteBuffer(string: "receipt-data=abc"))
            #expect(notJSON["status"] as? Int == 21000)
            let get = try await client.execute(uri: "/verifyReceipt", method: .get) { try jsonObject($0.body) }
            #expect(get["status"] as? Int == 21000)
        }
    }

    @Test func forgedReceipt_answers21003() async throws {
        let forged = coinsReceipt().encoded(signingKey: "a jailbreak tool's key")
        try await app().test(.router) { client async throws in
            #expect(try await client.status(forged) == 21003)
            #expect(try await client.status(forged, at: "/sandbox/verifyReceipt") == 21003)
        }
    }

    @Test func wrongEnvironment_answers21007And21008() async throws {
        let sandbox = coinsReceipt(environment: .sandbox).encoded(signingKey: "test-key")
        let production = coinsReceipt(environment: .production).encoded(signingKey: "test-key")
        try await app().test(.router) { client async throws in
            // Then each endpoint sends the other environment's receipts away, and takes its own
            #expect(try await client.status(sandbox, at: "/verifyReceipt") == 21007)
            #expect(try await client.status(production, at: "/sandbox/verifyReceipt") == 21008)
            let valid = try await client.verify("/sandbox/verifyReceipt", body: verifyBody(sandbox))
            #expect(valid["status"] as? Int == 0)
            #expect(valid["environment"] as? String == "Sandbox")
            #expect((valid["receipt"] as? [String: Any])?["receipt_type"] as? String == "ProductionSandbox")
            // And the stats count each endpoint apart
            let stats = try await client.stats()
            #expect(stats.production.requests == 1)
            #expect(stats.production.count(status: 21007) == 1)
            #expect(stats.sandbox.requests == 2)
            #expect(stats.sandbox.count(status: 21008) == 1)
            #expect(stats.sandbox.count(status: 0) == 1)
        }
    }

    @Test func sharedSecret_whenConfigured_mustMatch() async throws {
        var configuration = self.configuration
        configuration.sharedSecret = "s3cret"
        let receiptData = coinsReceipt().encoded(signingKey: "test-key")
        try await app(configuration).test(.router) { client async throws in
            #expect(try await client.status(receiptData, password: "wrong") == 21004)
            #expect(try await client.status(receiptData, password: nil) == 21004)
            #expect(try await client.status(receiptData, password: "s3cret") == 0)
        }
    }

    @Test func failFirst_answersRetryableStatusThenValid() async throws {
        let receiptData = coinsReceipt(failFirst: 2).encoded(signingKey: "test-key")
        let other = coinsReceipt(transactionID: "77", failFirst: 1).encoded(signingKey: "test-key")
        try await app().test(.router) { client async throws in
            for _ in 0..<2 {
                let body = try await client.verify(body: verifyBody(receiptData))
                #expect(body["status"] as? Int == 21100)
                #expect(body["is-retryable"] as? Bool == true)
            }
            // Counted per receipt: another receipt has its own count
            #expect(try await client.status(other) == 21100)
            #expect(try await client.status(receiptData) == 0)
            #expect(try await client.status(receiptData) == 0)
            #expect(try await client.status(other) == 0)
        }
    }

    @Test func transientUntil_followsTheStubsClock() async throws {
        // Given a clock the test moves
        let now = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
        var configuration = self.configuration
        configuration.now = { now.withLock { $0 } }
        let receiptData = coinsReceipt(
            transientUntil: Date(timeIntervalSince1970: 1_700_000_060), transientStatus: 21005
        ).encoded(signingKey: "test-key")
        try await app(configuration).test(.router) { client async throws in
            let early = try await client.verify(body: verifyBody(receiptData))
            #expect(early["status"] as? Int == 21005)
            #expect(early["is-retryable"] == nil)  // Apple sets it for 21100-21199 only
            now.withLock { $0 += 61 }
            #expect(try await client.status(receiptData) == 0)
        }
    }

    @Test func mint_roundTripsThroughVerifyReceipt() async throws {
        try await app().test(.router) { client async throws in
            // When a person mints a receipt naming only the product
            let minted = try await client.execute(
                uri: "/stub/receipts", method: .post,
                body: ByteBuffer(string: #"{"transactions": [{"product_id": "com.example.coins100", "quantity": 3}]}"#)
            ) { response in
                #expect(response.status == .ok)
                return try jsonObject(response.body)
            }
            let receiptData = try #require(minted["receipt_data"] as? String)
            let receipt = try #require(minted["receipt"] as? [String: Any])
            #expect(receipt["bundle_id"] as? String == "com.example.game")
            #expect(receipt["environment"] as? String == "Production")
            let transaction = try #require((receipt["transactions"] as? [[String: Any]])?.first)
            let transactionID = try #require(transaction["transaction_id"] as? String)
            #expect(transactionID.count == 16)
            // Then the stub vouches for it, with the defaults filled in
            let body = try await client.verify(body: verifyBody(receiptData))
            #expect(body["status"] as? Int == 0)
            let inApp = try #require(((body["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]])?.first)
            #expect(inApp["transaction_id"] as? String == transactionID)
            #expect(inApp["original_transaction_id"] as? String == transactionID)
            #expect(inApp["quantity"] as? String == "3")
            #expect(try await client.stats().receiptsMinted == 1)
        }
    }

    @Test func mint_withoutProduct_isABadRequest() async throws {
        try await app().test(.router) { client async throws in
            try await client.execute(
                uri: "/stub/receipts", method: .post, body: ByteBuffer(string: #"{"transactions": [{}]}"#)
            ) { response in
                #expect(response.status == .badRequest)
                let error = try jsonObject(response.body)["error"] as? [String: Any]
                #expect(error?["code"] as? String == "invalid_receipt")
            }
        }
    }
}
