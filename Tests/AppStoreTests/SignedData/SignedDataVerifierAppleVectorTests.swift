import AppStore
import Foundation
import Testing

/// Apple's own mock signed data, verified as ASSL's `SignedDataVerifierTests` verify it: trusting
/// `testCA.der`, bundle `com.example`, sandbox, app Apple id 1234.
@Suite("SignedDataVerifier with Apple's vectors")
struct SignedDataVerifierAppleVectorTests {
    typealias F = SignedDataFixtures

    @Test func transactionInfo_verifiesAndDecodes() async throws {
        // Given Apple's signed transaction and a verifier trusting Apple's test CA
        let verifier = try F.appleTestVerifier()
        let jws = try F.text("mock_signed_data/transactionInfo")
        // When it is verified
        let transaction = try await verifier.verifyTransaction(jws)
        // Then the payload is decoded
        #expect(transaction.environment == .sandbox)
        #expect(transaction.bundleId == "com.example")
        #expect(transaction.signedDate == Date(timeIntervalSince1970: 1_672_956_154))
        #expect(transaction.transactionId == nil)
    }

    @Test func renewalInfo_verifiesAndDecodes() async throws {
        let verifier = try F.appleTestVerifier()
        let renewalInfo = try await verifier.verifyRenewalInfo(try F.text("mock_signed_data/renewalInfo"))
        #expect(renewalInfo.environment == .sandbox)
        #expect(renewalInfo.signedDate == Date(timeIntervalSince1970: 1_672_956_154))
    }

    @Test func testNotification_verifiesAndDecodes() async throws {
        let verifier = try F.appleTestVerifier()
        let notification = try await verifier.verifyNotification(try F.text("mock_signed_data/testNotification"))
        #expect(notification.notificationType == .test)
        #expect(notification.rawNotificationType == "TEST")
        #expect(notification.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(notification.data?.appAppleId == 1234)
        #expect(notification.data?.bundleId == "com.example")
        #expect(notification.data?.environment == .sandbox)
        #expect(notification.data?.signedTransactionInfo == nil)
        #expect(notification.signedDate == Date(timeIntervalSince1970: 1_681_314_324))
    }

    @Test func wrongBundleId_isWrongApp() async throws {
        let verifier = try F.appleTestVerifier()
        let jws = try F.text("mock_signed_data/wrongBundleId")
        #expect(await F.failure { try await verifier.verifyNotification(jws) } == .wrongApp)
    }

    @Test func transactionForAnotherBundle_isWrongApp() async throws {
        let verifier = try F.appleTestVerifier(bundleID: "com.example.x")
        let jws = try F.text("mock_signed_data/transactionInfo")
        #expect(await F.failure { try await verifier.verifyTransaction(jws) } == .wrongApp)
    }

    @Test func notificationForAnotherAppAppleIdInProduction_isWrongApp() async throws {
        // Given a production verifier for app 1235; the notification is for app 1234
        let verifier = try F.appleTestVerifier(environment: .production, appAppleID: 1235)
        let jws = try F.text("mock_signed_data/testNotification")
        #expect(await F.failure { try await verifier.verifyNotification(jws) } == .wrongApp)
    }

    @Test func missingX5CHeaderClaim_isInvalidFormat() async throws {
        let verifier = try F.appleTestVerifier()
        let jws = try F.text("mock_signed_data/missingX5CHeaderClaim")
        #expect(await F.failure { try await verifier.verifyNotification(jws) } == .invalidFormat)
    }

    @Test func sandboxData_atProductionVerifier_isWrongEnvironment() async throws {
        // Given a production verifier for the right app (1234) and bundle
        let verifier = try F.appleTestVerifier(environment: .production, appAppleID: 1234)
        let transaction = try F.text("mock_signed_data/transactionInfo")
        let renewalInfo = try F.text("mock_signed_data/renewalInfo")
        let notification = try F.text("mock_signed_data/testNotification")
        // Then each sandbox payload is refused for its environment
        #expect(await F.failure { try await verifier.verifyTransaction(transaction) } == .wrongEnvironment)
        #expect(await F.failure { try await verifier.verifyRenewalInfo(renewalInfo) } == .wrongEnvironment)
        #expect(await F.failure { try await verifier.verifyNotification(notification) } == .wrongEnvironment)
    }

    @Test(arguments: ["a.b.c.d", "a.b.c", "", "a.b", "..", "..."])
    func malformedJWS_isInvalidFormat(_ token: String) async throws {
        let verifier = try F.appleTestVerifier()
        #expect(await F.failure { try await verifier.verifyNotification(token) } == .invalidFormat)
    }

    @Test func appleVectors_atTheRealAppleRoot_areInvalidChain() async throws {
        // Given a verifier trusting only Apple Root CA - G3 (the default)
        let verifier = try SignedDataVerifier(
            bundleID: "com.example", appAppleID: nil, environment: .sandbox, now: { F.appleVectorsTime })
        let jws = try F.text("mock_signed_data/transactionInfo")
        // Then data signed under Apple's test CA does not chain to it
        #expect(await F.failure { try await verifier.verifyTransaction(jws) } == .invalidChain)
    }

    @Test func signatureFromAnotherPayload_isInvalidSignature() async throws {
        // Given transactionInfo's header and payload with testNotification's signature (same leaf)
        let verifier = try F.appleTestVerifier()
        let transaction = try F.text("mock_signed_data/transactionInfo").split(separator: ".")
        let notification = try F.text("mock_signed_data/testNotification").split(separator: ".")
        let spliced = "\(transaction[0]).\(transaction[1]).\(notification[2])"
        // Then the chain validates but the signature does not
        #expect(await F.failure { try await verifier.verifyTransaction(spliced) } == .invalidSignature)
    }

    @Test func appleRootCAG3_isTheShippedCertificate() throws {
        #expect(SignedDataVerifier.appleRootCAG3 == (try F.bytes("certs/real-apple-root.der")))
        #expect(SignedDataVerifier.appleRootCAG3.count == 583)
    }
}
