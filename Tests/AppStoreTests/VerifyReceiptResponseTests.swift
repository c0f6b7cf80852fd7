import AppStore
import Foundation
import PipelineCore
import Testing

@Suite struct VerifyReceiptResponseTests {
    func decode(_ json: String) throws -> VerifyReceiptResponse {
        try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(json.utf8))
    }

    func date(ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    @Test func consumables_parseQuantityStringsMillisecondsAndCancellation() throws {
        // When Apple's answer for a production receipt is decoded
        let response = try decode(RecordedAnswers.consumables)
        // Then the strings Apple sends become numbers and dates, unknown fields ignored
        #expect(response.status == .valid)
        #expect(response.environment == "Production")
        #expect(response.receipt?.bundleID == "com.example.game")
        #expect(response.receipt?.applicationVersion == "42")
        #expect(response.latestReceiptInfo == nil)
        #expect(
            response.verifiedTransactions == [
                VerifiedTransaction(
                    transactionID: "300001234567890", originalTransactionID: "300001234567890",
                    productID: "com.example.coins100", quantity: 3, purchaseDate: date(ms: 1_709_288_129_000)),
                VerifiedTransaction(
                    transactionID: "300001234567777", originalTransactionID: "300001234567777",
                    productID: "com.example.sword", quantity: 1, purchaseDate: date(ms: 1_709_200_000_123),
                    cancellationDate: date(ms: 1_709_370_000_000)),
            ])
        #expect(response.receipt?.inApp.last?.cancellationReason == "0")
    }

    @Test func subscription_prefersLatestReceiptInfo_andDedupesByTransactionID() throws {
        let response = try decode(RecordedAnswers.subscription)
        #expect(response.environment == "Sandbox")
        #expect(response.latestReceipt?.hasPrefix("MIIUVg") == true)
        #expect(response.pendingRenewalInfo?.first?.autoRenewStatus == "1")
        // The first period appears in both lists; latest_receipt_info knows it was refunded
        let transactions = response.verifiedTransactions
        #expect(transactions.map(\.transactionID) == ["2000000500000001", "2000000500000002"])
        let first = try #require(transactions.first)
        #expect(first.cancellationDate == date(ms: 1_709_288_300_000))
        #expect(first.expiresDate == date(ms: 1_709_288_429_000))
        let renewal = try #require(transactions.last)
        #expect(renewal.originalTransactionID == "2000000500000001")
        #expect(renewal.expiresDate == date(ms: 1_709_288_729_000))
        #expect(renewal.appAccountToken == "6f2b1a7e-3c1d-4a7b-9d0e-1f2a3b4c5d6e")
        #expect(renewal.cancellationDate == nil)
    }

    @Test func retryableError_readsIsRetryable() throws {
        let response = try decode(RecordedAnswers.retryableInternalError)
        #expect(response.status.rawValue == 21199)
        #expect(response.isRetryable == true)
        #expect(response.receipt == nil)
    }

    @Test func lenient_readsNumbersAsStringsAndStringsAsNumbers() throws {
        // Given an answer with every type turned around, and junk where objects belong
        let response = try decode(
            #"""
            {"status": "0", "is-retryable": 1, "environment": "Production", "pending_renewal_info": "junk",
             "receipt": {"bundle_id": "com.example.game", "in_app": [
               {"transaction_id": 1001, "product_id": "p", "quantity": 2, "purchase_date_ms": 1709288129000},
               {"transaction_id": "1002", "quantity": "many"},
               {"product_id": "p"}
             ]}}
            """#)
        #expect(response.status == .valid)
        #expect(response.isRetryable == true)
        #expect(response.pendingRenewalInfo == nil)
        // Then entries that name no transaction or product are left out, odd quantities are 1
        #expect(
            response.verifiedTransactions == [
                VerifiedTransaction(
                    transactionID: "1001", originalTransactionID: "1001", productID: "p", quantity: 2,
                    purchaseDate: date(ms: 1_709_288_129_000))
            ])
        #expect(response.receipt?.inApp[1].quantity == nil)
    }

    @Test(arguments: [#"{"environment": "Production"}"#, #"{"status": "ok"}"#, "[]", "<html>"])
    func withoutNumericStatus_doesNotDecode(json: String) {
        #expect(throws: (any Error).self) { try decode(json) }
    }

    @Test func encoded_roundTripsInApplesShape() throws {
        // Given the recorded subscription answer
        let response = try decode(RecordedAnswers.subscription)
        // When it is encoded and decoded again
        let data = try JSONEncoder().encode(response)
        let again = try JSONDecoder().decode(VerifyReceiptResponse.self, from: data)
        // Then nothing is lost, and timestamps and quantities are strings again
        #expect(again == response)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let latest = try #require((object["latest_receipt_info"] as? [[String: Any]])?.first)
        #expect(latest["quantity"] as? String == "1")
        #expect(latest["expires_date_ms"] as? String == "1709288729000")
    }
}
