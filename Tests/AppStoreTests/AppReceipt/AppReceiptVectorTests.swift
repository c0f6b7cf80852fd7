import AppStore
import Foundation
import Testing

/// Real receipts: every Apple-signed vector verifies at its creation date and says what the
/// manifest lists; Xcode receipts need an opt-in; wrong roots, wrong bundles and today's date fail.
@Suite struct AppReceiptVectorTests {
    @Test func manifestListsAppleSignedVectorsOfBothDigests() {
        // Given the manifest beside the vectors, then it names SHA-1 (pre-G5) and SHA-256 (G5) receipts.
        let digests = Set(AppReceiptFixtures.appleSigned.compactMap { $0.decoded?.digest_algorithm })
        #expect(AppReceiptFixtures.appleSigned.count >= 20)
        #expect(digests == ["sha1", "sha256"])
    }

    @Test(arguments: AppReceiptFixtures.appleSigned)
    func appleSignedVector_verifiesAtItsCreationDate_andDecodesToTheManifestFacts(
        _ vector: AppReceiptFixtures.Vector
    ) async throws {
        let facts = try #require(vector.decoded)
        // Given Apple Inc. Root CA and the receipt's own bundle id
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: facts.bundle_id)
        // When the receipt is verified at its creation date
        let receipt = try await verifier.verify(der: try AppReceiptFixtures.receipt(vector.file))
        // Then it says what the manifest lists
        #expect(receipt.rawEnvironment == facts.environment_field0)
        #expect(receipt.bundleID == facts.bundle_id)
        #expect(receipt.appVersion == facts.app_version)
        #expect(receipt.creationDate == facts.receipt_creation_date.flatMap(AppReceiptFixtures.date))
        #expect(receipt.inAppPurchases.count == facts.in_app_count)
        for (purchase, listed) in zip(receipt.inAppPurchases, facts.in_app ?? []) {
            #expect(purchase.productID == listed.product_id)
            #expect(purchase.transactionID == listed.transaction_id)
            #expect(purchase.originalTransactionID == listed.original_transaction_id)
            #expect(purchase.quantity == listed.quantity)
            #expect(purchase.purchaseDate == listed.purchase_date.flatMap(AppReceiptFixtures.date))
            #expect(purchase.originalPurchaseDate == listed.original_purchase_date.flatMap(AppReceiptFixtures.date))
            #expect(purchase.expiresDate == listed.expires_date.flatMap(AppReceiptFixtures.date))
            #expect(purchase.webOrderLineItemID == listed.web_order_line_item_id)
        }
    }

    @Test(arguments: AppReceiptFixtures.appleSigned)
    func appleSignedVector_isRejectedAtTodaysDate_becauseItsChainHasExpired(
        _ vector: AppReceiptFixtures.Vector
    ) async throws {
        // Given a verifier that checks the chain now rather than at the creation date
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: nil, validationTime: .now)
        // Then every vector's chain has expired since (the newest leaf ended in August 2026)
        let error = await #expect(throws: AppReceiptError.self) {
            try await verifier.verify(der: try AppReceiptFixtures.receipt(vector.file))
        }
        #expect(error?.reason == .chainInvalid)
    }

    @Test(arguments: AppReceiptFixtures.xcode)
    func xcodeReceipt_isRefusedByDefault_andAcceptedWithItsCertificateTrusted(
        _ vector: AppReceiptFixtures.Vector
    ) async throws {
        let der = try AppReceiptFixtures.receipt(vector.file)
        // Given the default configuration (Apple's root only), then an Xcode receipt is refused
        let strict = try AppReceiptFixtures.appleVerifier(bundleID: nil)
        let error = await #expect(throws: AppReceiptError.self) { try await strict.verify(der: der) }
        #expect(error?.reason == .xcodeNotAllowed)
        #expect(error?.isDecided == true)
        // Given the StoreKit test certificate trusted explicitly, then it is read (BER indefinite lengths)
        let storeKit = try AppReceiptFixtures.bytes("TPInAppReceipt/StoreKitTestCertificate.cer")
        let lenient = try AppReceiptFixtures.appleVerifier(bundleID: vector.decoded?.bundle_id, xcode: [storeKit])
        let receipt = try await lenient.verify(der: der)
        #expect(receipt.environment == .xcode)
        #expect(receipt.bundleID == vector.decoded?.bundle_id)
        #expect(receipt.inAppPurchases.map(\.productID) == (vector.decoded?.in_app ?? []).map(\.product_id))
    }

    @Test func xcodeReceiptWithoutOriginalFields_decodesThemAsMissing() async throws {
        // Given the receipt whose purchase lacks 1705 and 1706 (TPInAppReceipt issue #83)
        let storeKit = try AppReceiptFixtures.bytes("TPInAppReceipt/StoreKitTestCertificate.cer")
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: "com.nutcall.alert", xcode: [storeKit])
        let receipt = try await verifier.verify(
            der: try AppReceiptFixtures.receipt("TPInAppReceipt/history-dafb8d9/receipt-no-orig-purchase-date"))
        // Then those fields are nil and the rest is read
        let purchase = try #require(receipt.inAppPurchases.first)
        #expect(purchase.originalTransactionID == nil)
        #expect(purchase.originalPurchaseDate == nil)
        #expect(purchase.productID == "com.nutcallalert.inapp.optimum")
        #expect(purchase.transactionID == "0")
    }

    @Test(arguments: ["AppleRootCA-G3.cer", "AppleComputerRootCertificate.cer"])
    func otherRoot_isAChainFailure(_ root: String) async throws {
        // Given another root as the only one trusted (Apple's, but not the one receipts chain to)
        let verifier = try AppReceiptFixtures.appleVerifier(
            bundleID: nil, roots: [try AppReceiptFixtures.bytes("go-applereceipt/applepki-certs/\(root)")])
        let error = await #expect(throws: AppReceiptError.self) {
            try await verifier.verify(
                der: try AppReceiptFixtures.receipt("AppReceiptValidator/hannes_mac_mindnode_2_receipt"))
        }
        #expect(error?.reason == .chainInvalid)
    }

    @Test func nonAppleRoot_isRefusedAtConfiguration() throws {
        // Given AppReceiptValidator's wrong root (a 1024-bit RSA CA, too weak for swift-crypto)
        let root = try AppReceiptFixtures.bytes("AppReceiptValidator/frank4dd-cacert.der")
        // Then the verifier cannot be configured with it, and says which root and why
        let error = #expect(throws: SignedDataConfigurationError.self) {
            try AppReceiptFixtures.appleVerifier(bundleID: nil, roots: [root])
        }
        #expect(error?.reason == .invalidRootCertificate)
    }

    @Test func wrongBundleID_isABundleMismatch() async throws {
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: "com.example.game")
        let error = await #expect(throws: AppReceiptError.self) {
            try await verifier.verify(der: try AppReceiptFixtures.receipt("TPInAppReceipt/receipt-sandbox-g5"))
        }
        #expect(error?.reason == .bundleMismatch)
        #expect(error?.rejectionReason == "bundle_mismatch")
    }

    @Test(arguments: ["leaf", "intermediate"])
    func certificateOfTheReceiptTrustedAsRoot_isNotAppleSChain(_ which: String) async throws {
        // Given the receipt's own leaf (a chain of one) or intermediate (of two) as the root
        let der = try AppReceiptFixtures.receipt("TPInAppReceipt/receipt-sandbox-g5")
        let name = which == "leaf" ? "Receipt Signing" : "Developer Relations Certification Authority"
        let certificate = try #require(try AppReceiptCertificates.find(name, in: der))
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: nil, roots: [certificate])
        // Then Apple's three-certificate rule refuses it
        let error = await #expect(throws: AppReceiptError.self) { try await verifier.verify(der: der) }
        #expect(error?.reason == .chainInvalid)
    }

    @Test(arguments: [
        "AppReceiptValidator/not_a_receipt", "AppReceiptValidator/deprecatedSinglesTypeExpiredAppleCert_receipt.b64",
        "app-store-receipt-parser/fixtures.json#invalidReceipt", "receipt_decoder/payload",
    ])
    func notAReceipt_isMalformed_andUndecided(_ file: String) async throws {
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: nil)
        let bytes = try AppReceiptFixtures.receipt(file)
        let error = await #expect(throws: AppReceiptError.self) { try await verifier.verify(der: bytes) }
        #expect(error?.reason == .malformed)
        #expect(error?.isDecided == false)
    }
}
