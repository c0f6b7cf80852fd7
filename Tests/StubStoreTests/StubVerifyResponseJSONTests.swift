import Foundation
import PipelineCore
import PipelineTesting
import Testing

@testable import StubStore

/// The `verifyReceipt` answers `JSONText` writes are, byte for byte, what their `Encodable`
/// conformances write through `WireCoding.encoder()`, as the stub answered before: every
/// status, receipts with and without subscriptions, renewals, cancellations and each optional
/// member, strings that need escaping.
struct StubVerifyResponseJSONTests {
    @Test func everyShapeIsWrittenAsTheEncoderWritesIt() throws {
        var random = FuzzRandom(seed: 31)
        for round in 0..<2_000 {
            let response = random.verifyResponse()
            let reference = String(decoding: try WireCoding.encoder().encode(response), as: UTF8.self)
            #expect(String(decoding: response.jsonBytes(), as: UTF8.self) == reference, "round \(round)")
        }
    }

    @Test func theVerifyRouteAnswersTheWrittenBytes() async throws {
        let store = StubAppStore(configuration: StubStoreConfiguration(bundleID: "com.example.game"))
        let receiptData = store.issue(
            StubReceipt(
                bundleID: "com.example.game",
                transactions: [
                    StubReceipt.Transaction(transactionID: "t-1", productID: "com.example.coins100"),
                    StubReceipt.Transaction(
                        transactionID: "t-2", productID: "com.example.pass",
                        expiresDate: Date(timeIntervalSince1970: 1_900_000_000)),
                ]))
        let body = Data(#"{"receipt-data": "\#(receiptData)"}"#.utf8)
        let response = await store.verify(body: body, at: .production)
        #expect(response.status == 0 && response.latestReceiptInfo?.count == 2)
        let written = String(decoding: response.jsonBytes(), as: UTF8.self)
        #expect(written == String(decoding: try WireCoding.encoder().encode(response), as: UTF8.self))
        #expect(written.contains(#""expires_date_ms":"1900000000000""#))
    }
}

extension FuzzRandom {
    mutating func stubTransaction() -> StubReceipt.Transaction {
        var transaction = StubReceipt.Transaction(
            transactionID: wireText(), originalTransactionID: maybe { $0.wireText() }, productID: wireText(),
            quantity: wireInt(), purchaseDate: wireDate(), expiresDate: maybe { $0.wireDate() })
        transaction.cancellationDate = maybe { $0.wireDate() }
        transaction.cancellationReason = maybe { $0.wireText() }
        transaction.webOrderLineItemID = maybe { $0.wireText() }
        transaction.appAccountToken = maybe { $0.wireText() }
        return transaction
    }

    mutating func verifyResponse() -> StubVerifyResponse {
        var response = StubVerifyResponse(
            status: oneIn(3) ? 0 : wireInt(), environment: maybe { $0.wireText() },
            isRetryable: maybe { $0.oneIn(2) })
        guard response.status == 0 || oneIn(4) else { return response }
        let inApp = (0..<below(4)).map { _ in
            let transaction = stubTransaction()
            return StubVerifyResponse.InApp(transaction: transaction, isSubscription: transaction.expiresDate != nil)
        }
        response.receipt = StubVerifyResponse.Receipt(
            receiptType: wireText(), bundleID: wireText(), applicationVersion: wireText(),
            originalApplicationVersion: wireText(), receiptCreationDate: AppleDate(wireDate()),
            requestDate: AppleDate(wireDate()), inApp: inApp)
        response.latestReceiptInfo = maybe { _ in inApp }
        response.latestReceipt = maybe { $0.wireText() }
        if oneIn(2) {
            response.pendingRenewalInfo = (0..<below(3)).map { _ in
                StubVerifyResponse.PendingRenewal(productID: wireText(), originalTransactionID: wireText())
            }
        }
        return response
    }
}
