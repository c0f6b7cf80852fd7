import AppStore
import Foundation
import Testing

/// One flipped byte, wherever it lands in what is signed or what vouches for the signer,
/// makes an Apple receipt fail the check that covers it.
@Suite struct AppReceiptTamperingTests {
    /// A G5 (SHA-256) and a WWDR-2013 (SHA-1) receipt, with a bundle id to find in the payload.
    static let receipts = [
        ("TPInAppReceipt/receipt-sandbox-g5", "dev.bonzer.weeka.app"),
        ("go-applereceipt/decode_test.go__oldReceipt.b64", "com.devsisters.gb"),
    ]

    @Test(arguments: receipts)
    func flippedSignatureByte_isAnInvalidSignature(_ file: String, _ bundleID: String) async throws {
        // Given the receipt with a byte of its signature (the container's last bytes) flipped
        let der = try AppReceiptFixtures.receipt(file)
        let tampered = AppReceiptCertificates.flipped(der, at: der.count - 10)
        // Then the signature fails
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: bundleID)
        let error = await #expect(throws: AppReceiptError.self) { try await verifier.verify(der: tampered) }
        #expect(error?.reason == .signatureInvalid)
        #expect(error?.isDecided == true)
    }

    @Test(arguments: receipts)
    func flippedPayloadByte_isAnInvalidSignature(_ file: String, _ bundleID: String) async throws {
        // Given the receipt with a letter of its bundle id changed (the payload still parses)
        let der = try AppReceiptFixtures.receipt(file)
        let at = try #require(AppReceiptCertificates.range(of: Array(bundleID.utf8), in: der))
        var tampered = der
        tampered[at.lowerBound] = UInt8(ascii: "x")
        // Then the signature over the payload fails, before the bundle id is believed
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: bundleID)
        let error = await #expect(throws: AppReceiptError.self) { try await verifier.verify(der: tampered) }
        #expect(error?.reason == .signatureInvalid)
    }

    @Test(arguments: receipts)
    func flippedByteInTheLeafOrIntermediate_isAnInvalidChain(_ file: String, _ bundleID: String) async throws {
        let der = try AppReceiptFixtures.receipt(file)
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: bundleID)
        for name in ["Receipt Signing", "Developer Relations Certification Authority"] {
            // Given a byte of the certificate's own signature flipped (its key, and so the receipt's signature, intact)
            let certificate = try #require(try AppReceiptCertificates.find(name, in: der))
            let at = try #require(AppReceiptCertificates.range(of: certificate, in: der))
            let tampered = AppReceiptCertificates.flipped(der, at: at.upperBound - 5)
            // Then the chain no longer holds
            let error = await #expect(throws: AppReceiptError.self) { try await verifier.verify(der: tampered) }
            #expect(error?.reason == .chainInvalid, "\(name)")
        }
    }

    @Test func truncatedReceipt_isMalformedAtEveryLength() async throws {
        // Given every prefix of a real receipt, at a stride (and the last bytes one by one)
        let der = try AppReceiptFixtures.receipt("TPInAppReceipt/receipt-sandbox-g5")
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: nil)
        let lengths = Array(stride(from: 0, to: der.count, by: 97)) + Array((der.count - 8)..<der.count)
        for length in lengths {
            // Then none verifies, and each is a clear error rather than a crash
            let error = await #expect(throws: AppReceiptError.self) {
                try await verifier.verify(der: Array(der.prefix(length)))
            }
            #expect(error?.reason == .malformed, "length \(length)")
        }
    }
}
