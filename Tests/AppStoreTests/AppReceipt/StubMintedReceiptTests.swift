import AppStore
import Foundation
import StubStore
import Testing

/// Receipts the stub store mints as PKCS #7 verify like Apple's, under the stub's own root.
@Suite struct StubMintedReceiptTests {
    @Test func mintedReceipt_roundTripsThroughSigningAndVerification() async throws {
        // Given a receipt signed by the stub's chain
        let authority = try AppReceiptFixtures.stubAuthority()
        let receipt = AppReceiptFixtures.receipt()
        let der = try authority.sign(receipt)
        // When it is verified trusting the stub's root
        let verified = try await AppReceiptFixtures.stubVerifier(trusting: authority).verify(der: der)
        // Then it says exactly what was signed
        #expect(verified == receipt)
    }

    @Test func mintedSHA1Receipt_verifiesAsOldIntermediatesSigned() async throws {
        var options = ReceiptCertificateAuthority.Options()
        options.usesSHA1 = true
        let authority = try ReceiptCertificateAuthority(
            notBefore: AppReceiptFixtures.notBefore, notAfter: AppReceiptFixtures.notAfter, options: options)
        let receipt = AppReceiptFixtures.receipt(environment: .productionSandbox)
        let verified = try await AppReceiptFixtures.stubVerifier(trusting: authority).verify(
            der: try authority.sign(receipt))
        #expect(verified == receipt)
    }

    @Test func leafOfferedAsItsOwnChain_isAnInvalidChain() async throws {
        // Given a receipt whose container holds only the signing leaf
        let authority = try AppReceiptFixtures.stubAuthority()
        let der = try authority.sign(
            payload: try AppReceiptFixtures.receipt().derEncodedPayload(), includingChain: false)
        // Then its signature holds but no chain to the root can be built
        let error = await #expect(throws: AppReceiptError.self) {
            try await AppReceiptFixtures.stubVerifier(trusting: authority).verify(der: der)
        }
        #expect(error?.reason == .chainInvalid)
    }

    @Test(arguments: [false, true])
    func chainWithoutApplesMarkers_isAnInvalidChain(_ onLeaf: Bool) async throws {
        var options = ReceiptCertificateAuthority.Options()
        if onLeaf { options.leafHasReceiptSigningOID = false } else { options.intermediateHasWWDROID = false }
        let authority = try ReceiptCertificateAuthority(
            notBefore: AppReceiptFixtures.notBefore, notAfter: AppReceiptFixtures.notAfter, options: options)
        let error = await #expect(throws: AppReceiptError.self) {
            try await AppReceiptFixtures.stubVerifier(trusting: authority).verify(
                der: try authority.sign(AppReceiptFixtures.receipt()))
        }
        #expect(error?.reason == .chainInvalid)
        #expect(error?.message.contains(onLeaf ? "6.11.1" : "6.2.1") == true)
    }

    @Test func receiptCreatedOutsideTheChainsValidity_isAnInvalidChain() async throws {
        // Given a receipt whose creation date is after the certificates expired
        let authority = try AppReceiptFixtures.stubAuthority()
        let late = AppReceiptFixtures.receipt(created: AppReceiptFixtures.notAfter.addingTimeInterval(86_400))
        let error = await #expect(throws: AppReceiptError.self) {
            try await AppReceiptFixtures.stubVerifier(trusting: authority).verify(der: try authority.sign(late))
        }
        #expect(error?.reason == .chainInvalid)
    }

    @Test func appleReceipt_isNotTrustedUnderTheStubsRoot_norTheStubsUnderApples() async throws {
        let authority = try AppReceiptFixtures.stubAuthority()
        let apple = try AppReceiptFixtures.receipt("TPInAppReceipt/receipt-sandbox-g5")
        await #expect(throws: AppReceiptError.self) {
            try await AppReceiptFixtures.stubVerifier(trusting: authority, bundleID: nil).verify(der: apple)
        }
        let stub = try authority.sign(AppReceiptFixtures.receipt())
        let error = await #expect(throws: AppReceiptError.self) {
            try await AppReceiptFixtures.appleVerifier(bundleID: nil).verify(der: stub)
        }
        #expect(error?.reason == .chainInvalid)
    }

    @Test func inspection_reportsEveryCheck_evenPastAFailure() async throws {
        // Given an Apple receipt inspected at today's date for another app
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: "com.example.game", validationTime: .now)
        let report = await verifier.inspect(der: try AppReceiptFixtures.receipt("TPInAppReceipt/receipt-production"))
        // Then the content, the signature, the expired chain and the wrong bundle all show
        #expect(report.receipt?.bundleID == "org.getpure.pure-iphone")
        #expect(report.receipt?.inAppPurchases.count == 4)
        #expect(report.signature.ok)
        #expect(report.chain?.reason == AppReceiptError.Reason.chainInvalid.rawValue)
        #expect(report.bundle?.reason == AppReceiptError.Reason.bundleMismatch.rawValue)
        #expect(report.certificates.count == 3)
        #expect(report.certificates.first?.contains("Receipt Signing") == true)
        #expect(!report.valid)
    }
}
