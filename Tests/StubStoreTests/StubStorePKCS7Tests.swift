import AppStore
import Foundation
import Hummingbird
import HummingbirdTesting
import StubStore
import Testing

/// PKCS #7 receipts over the stub's HTTP routes: minted, their root served, vouched for.
@Suite struct StubStorePKCS7Tests {
    @Test func pkcs7Mint_verifiesLocallyUnderTheServedRoot_andAtVerifyReceipt() async throws {
        let app = makeStubStoreApplication(configuration: StubStoreConfiguration(seed: 1), port: 0)
        try await app.test(.router) { client async throws in
            // When a person mints a PKCS #7 receipt and fetches the root
            let minted = try await client.execute(
                uri: "/stub/receipts", method: .post,
                body: ByteBuffer(
                    string:
                        #"{"format": "pkcs7", "environment": "Sandbox", "transactions": [{"product_id": "com.example.coins100", "quantity": 2}]}"#
                )
            ) { response in
                #expect(response.status == .ok)
                return try jsonObject(response.body)
            }
            let receiptData = try #require(minted["receipt_data"] as? String)
            let root = try await client.execute(uri: "/stub/receipt-root", method: .get) { response in
                #expect(response.headers[.contentType] == "application/pkix-cert")
                return Array(buffer: response.body)
            }
            // Then the receipt verifies locally under that root, as Apple's receipts do under Apple's
            let verifier = try AppReceiptVerifier(
                configuration: .init(rootCertificates: [root], bundleID: "com.example.game"))
            let receipt = try await verifier.verify(base64: receiptData)
            #expect(receipt.environment == .productionSandbox)
            #expect(receipt.inAppPurchases.first?.quantity == 2)
            // And the stub's sandbox verifyReceipt vouches for it too
            let body = try await client.verify("/sandbox/verifyReceipt", body: verifyBody(receiptData))
            #expect(body["status"] as? Int == 0)
            let inApp = try #require(((body["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]])?.first)
            #expect(inApp["transaction_id"] as? String == receipt.inAppPurchases.first?.transactionID)
            #expect(try await client.stats().receiptsMinted == 1)
        }
    }

    @Test func pkcs7ReceiptOfAnotherStore_isAnswered21003_andNoise21002() async throws {
        let other = StubAppStore().issuePKCS7(
            StubReceipt(bundleID: "com.example.game", transactions: [.init(transactionID: "1", productID: "x")]))
        let app = makeStubStoreApplication(configuration: StubStoreConfiguration(seed: 1), port: 0)
        try await app.test(.router) { client async throws in
            // The store made its own authority first (by serving its root), and still does not vouch
            _ = try await client.execute(uri: "/stub/receipt-root", method: .get) { _ in }
            let body = try await client.verify(body: verifyBody(other))
            #expect(body["status"] as? Int == 21003)
            let noise = try await client.verify(body: verifyBody(Data("noise".utf8).base64EncodedString()))
            #expect(noise["status"] as? Int == 21002)
        }
    }

    /// `receiptRoots`: receipts one process minted read at another, as `iap-lab bench --pkcs7-receipts` needs.
    @Test func pkcs7ReceiptUnderAnExtraRoot_isVouchedFor() async throws {
        let minter = StubAppStore()
        let receipt = minter.issuePKCS7(
            StubReceipt(bundleID: "com.example.game", transactions: [.init(transactionID: "7", productID: "x")]))
        let app = makeStubStoreApplication(
            configuration: StubStoreConfiguration(seed: 1, receiptRoots: [minter.receiptAuthority.rootDER]), port: 0)
        try await app.test(.router) { client async throws in
            let body = try await client.verify(body: verifyBody(receipt))
            #expect(body["status"] as? Int == 0)
            let inApp = try #require(((body["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]])?.first)
            #expect(inApp["transaction_id"] as? String == "7")
        }
    }
}
