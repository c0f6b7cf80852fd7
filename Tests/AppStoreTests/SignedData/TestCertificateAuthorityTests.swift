import AppStore
import Foundation
import PipelineCore
import StubStore
import Testing
import X509

/// Signing with the stub's authority and verifying with ``SignedDataVerifier``.
@Suite("TestCertificateAuthority and JWSSigner round trips")
struct TestCertificateAuthorityTests {
    typealias F = SignedDataFixtures

    // MARK: Round trips

    @Test func signedTransaction_verifiesToTheSamePayload() async throws {
        // Given a transaction signed by the stub's authority
        let authority = try F.authority()
        let payload = F.transaction()
        let jws = authority.signer.signTransaction(payload)
        // When a verifier trusting that authority's root verifies it
        let verified = try await F.verifier(trusting: authority).verifyTransaction(jws)
        // Then every field survives
        #expect(verified == payload)
        #expect(verified.type == .consumable)
        #expect(verified.quantity == 3)
    }

    @Test func signedRenewalInfo_verifiesToTheSamePayload() async throws {
        let authority = try F.authority()
        let payload = JWSRenewalInfoDecodedPayload(
            originalTransactionId: "2000000100", autoRenewProductId: "com.example.game.pro.yearly",
            productId: "com.example.game.pro.monthly", autoRenewStatus: .on, isInBillingRetryPeriod: true,
            gracePeriodExpiresDate: Date(timeIntervalSince1970: 1_767_830_400), signedDate: F.signedDate,
            environment: .sandbox, renewalDate: Date(timeIntervalSince1970: 1_769_904_000))
        let verified = try await F.verifier(trusting: authority).verifyRenewalInfo(
            authority.signer.signRenewalInfo(payload))
        #expect(verified == payload)
        #expect(verified.autoRenewStatus == .on)
    }

    @Test func signedNotification_verifiesToTheSamePayload() async throws {
        let authority = try F.authority()
        let payload = ResponseBodyV2DecodedPayload(
            notificationType: .refund, notificationUUID: "e1c5e6a5-8d3c-4e47-9f3f-0f8e4c1b2a10",
            data: .init(
                environment: .production, appAppleId: 9_876_543_210, bundleId: F.bundleID, bundleVersion: "42",
                signedTransactionInfo: authority.signer.signTransaction(F.transaction()), status: .revoked),
            version: "2.0", signedDate: F.signedDate)
        let verifier = try F.verifier(trusting: authority, environment: .production, appAppleID: 9_876_543_210)
        let verified = try await verifier.verifyNotification(authority.signer.signNotification(payload))
        #expect(verified == payload)
        #expect(verified.notificationType == .refund)
        #expect(verified.data?.status == .revoked)
    }

    @Test func signedNotification_inProduction_checksTheAppAppleId() async throws {
        // Given a production notification for app 9876543210
        let authority = try F.authority()
        let payload = ResponseBodyV2DecodedPayload(
            notificationType: .test, notificationUUID: "0f1e2d3c-0000-4000-8000-000000000001",
            data: .init(environment: .production, appAppleId: 9_876_543_210, bundleId: F.bundleID),
            signedDate: F.signedDate)
        let jws = authority.signer.signNotification(payload)
        // Then it verifies for that app, and not for another
        let verified = try await F.verifier(trusting: authority, environment: .production).verifyNotification(jws)
        #expect(verified == payload)
        let other = try F.verifier(trusting: authority, environment: .production, appAppleID: 1)
        #expect(await F.failure { try await other.verifyNotification(jws) } == .wrongApp)
    }

    @Test func summaryNotification_isCheckedAgainstItsSummary() async throws {
        let authority = try F.authority()
        let payload = ResponseBodyV2DecodedPayload(
            notificationType: .renewalExtension, subtype: .summary,
            notificationUUID: "0f1e2d3c-0000-4000-8000-000000000002",
            signedDate: F.signedDate,
            summary: .init(
                environment: .sandbox, bundleId: F.bundleID, productId: "p", succeededCount: 5, failedCount: 2))
        let jws = authority.signer.signNotification(payload)
        #expect(try await F.verifier(trusting: authority).verifyNotification(jws) == payload)
        let otherApp = try F.verifier(trusting: authority, bundleID: "com.example.other")
        #expect(await F.failure { try await otherApp.verifyNotification(jws) } == .wrongApp)
    }

    @Test func notificationWithoutDataOrSummary_isWrongApp() async throws {
        let authority = try F.authority()
        let jws = authority.signer.signNotification(
            ResponseBodyV2DecodedPayload(notificationType: .test, notificationUUID: "x", signedDate: F.signedDate))
        #expect(await F.failure { try await F.verifier(trusting: authority).verifyNotification(jws) } == .wrongApp)
    }

    @Test func header_isAlgES256_withLeafIntermediateRootInStandardBase64() throws {
        let authority = try F.authority()
        let jws = authority.signer.signTransaction(F.transaction())
        let header = try #require(Base64URL.decode(jws.split(separator: ".")[0]))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(header)) as? [String: Any])
        #expect(object["alg"] as? String == "ES256")
        let x5c = try #require(object["x5c"] as? [String])
        #expect(
            x5c
                == [authority.leafDER, authority.intermediateDER, authority.rootDER].map {
                    Data($0).base64EncodedString()
                })
        #expect(jws.split(separator: ".").count == 3)
        #expect(!jws.contains("="))
    }

    // MARK: Certificates

    @Test func certificates_carryApplesMarkers_asNonCriticalNull() throws {
        let authority = try F.authority()
        let leaf = try Certificate(derEncoded: authority.leafDER)
        let intermediate = try Certificate(derEncoded: authority.intermediateDER)
        let root = try Certificate(derEncoded: authority.rootDER)

        let leafMarker = try #require(leaf.extensions[oid: TestCertificateAuthority.receiptSigningOID])
        #expect(!leafMarker.critical)
        #expect(Array(leafMarker.value) == [0x05, 0x00])
        let intermediateMarker = try #require(
            intermediate.extensions[oid: TestCertificateAuthority.wwdrIntermediateOID])
        #expect(!intermediateMarker.critical)
        #expect(Array(intermediateMarker.value) == [0x05, 0x00])
        #expect(leaf.extensions[oid: TestCertificateAuthority.wwdrIntermediateOID] == nil)

        #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try intermediate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try root.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        #expect(try leaf.extensions.keyUsage?.digitalSignature == true)
        #expect(try intermediate.extensions.keyUsage?.keyCertSign == true)
        #expect(leaf.issuer == intermediate.subject)
        #expect(intermediate.issuer == root.subject)
        #expect(root.issuer == root.subject)
        #expect(leaf.notValidBefore == F.notBefore)
        #expect(leaf.notValidAfter == F.notAfter)
    }

    @Test func twoAuthorities_haveDifferentRoots() throws {
        #expect(try F.authority().rootDER != F.authority().rootDER)
    }

    // MARK: What must not verify

    @Test func tamperedPayload_isInvalidSignature() async throws {
        // Given a signed transaction whose payload is swapped for a richer one
        let authority = try F.authority()
        let parts = authority.signer.signTransaction(F.transaction()).split(separator: ".")
        var richer = F.transaction()
        richer.quantity = 1000
        let forgedPayload = Base64URL.encode(try AppStoreJSON.makeEncoder().encode(richer))
        let forged = "\(parts[0]).\(forgedPayload).\(parts[2])"
        // Then the signature gives it away
        let verifier = try F.verifier(trusting: authority)
        #expect(await F.failure { try await verifier.verifyTransaction(forged) } == .invalidSignature)
    }

    @Test func flippedSignatureByte_isInvalidSignature() async throws {
        let authority = try F.authority()
        let parts = authority.signer.signTransaction(F.transaction()).split(separator: ".")
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[10] ^= 0x01
        let forged = "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
        let verifier = try F.verifier(trusting: authority)
        #expect(await F.failure { try await verifier.verifyTransaction(forged) } == .invalidSignature)
    }

    @Test func chainToAnotherRoot_isInvalidChain() async throws {
        let signing = try F.authority()
        let trusted = try F.authority()
        let jws = signing.signer.signTransaction(F.transaction())
        let verifier = try F.verifier(trusting: trusted)
        #expect(await F.failure { try await verifier.verifyTransaction(jws) } == .invalidChain)
    }

    @Test func trustedRootInX5C_doesNotMakeAnotherChainValid() async throws {
        // Given a forger's leaf and intermediate, with the trusted root copied into x5c[2]
        let forger = try F.authority()
        let trusted = try F.authority()
        let signer = forger.signer.replacingCertificateChain([forger.leafDER, forger.intermediateDER, trusted.rootDER])
        let jws = signer.signTransaction(F.transaction())
        // Then only the configured root counts, and the forger's intermediate does not chain to it
        let verifier = try F.verifier(trusting: trusted)
        #expect(await F.failure { try await verifier.verifyTransaction(jws) } == .invalidChain)
    }

    @Test func leafWithoutReceiptSigningOID_isInvalidChain() async throws {
        let authority = try F.authority(.init(leafHasReceiptSigningOID: false))
        let jws = authority.signer.signTransaction(F.transaction())
        let verifier = try F.verifier(trusting: authority)
        #expect(await F.failure { try await verifier.verifyTransaction(jws) } == .invalidChain)
    }

    @Test func intermediateWithoutWWDROID_isInvalidChain() async throws {
        let authority = try F.authority(.init(intermediateHasWWDROID: false))
        let jws = authority.signer.signTransaction(F.transaction())
        let verifier = try F.verifier(trusting: authority)
        #expect(await F.failure { try await verifier.verifyTransaction(jws) } == .invalidChain)
    }

    @Test(arguments: [
        Date(timeIntervalSince1970: 1_798_761_601),  // a second after notAfter
        Date(timeIntervalSince1970: 1_893_456_000),  // 2030
        Date(timeIntervalSince1970: 1_735_689_599),  // a second before notBefore
    ])
    func signedOutsideTheCertificatesValidity_isInvalidChain(_ signedDate: Date) async throws {
        let authority = try F.authority()
        let jws = authority.signer.signTransaction(F.transaction(signedDate: signedDate))
        let verifier = try F.verifier(trusting: authority)
        #expect(await F.failure { try await verifier.verifyTransaction(jws) } == .invalidChain)
    }

    @Test func withoutSignedDate_theClockDecides() async throws {
        // Given a transaction with no signedDate
        let authority = try F.authority()
        let jws = authority.signer.signTransaction(F.transaction(signedDate: nil))
        // Then it verifies while the clock is inside the validity, and not after
        let inside = try F.verifier(trusting: authority)
        #expect(try await inside.verifyTransaction(jws).transactionId == "2000000123")
        let after = try SignedDataVerifier(
            rootCertificates: [authority.rootDER], bundleID: F.bundleID, appAppleID: nil, environment: .sandbox,
            now: { F.notAfter.addingTimeInterval(1) })
        #expect(await F.failure { try await after.verifyTransaction(jws) } == .invalidChain)
    }

    @Test func productionTransaction_atSandboxVerifier_isWrongEnvironment() async throws {
        let authority = try F.authority()
        let jws = authority.signer.signTransaction(F.transaction(environment: .production))
        let verifier = try F.verifier(trusting: authority)
        #expect(await F.failure { try await verifier.verifyTransaction(jws) } == .wrongEnvironment)
    }
}
