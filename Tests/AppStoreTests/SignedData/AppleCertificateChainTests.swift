import AppStore
import Foundation
import Testing

/// Apple's real chain: Apple Root CA - G3 ← WWDR G6 ← the App Store's receipt-signing leaf
/// (valid 2025-09-19 to 2027-10-13).
@Suite("Apple's real certificate chain")
struct AppleCertificateChainTests {
    typealias F = SignedDataFixtures

    static let november2025 = Date(timeIntervalSince1970: 1_761_955_200)  // 2025-11-01

    private func chainFailure(
        verifier: SignedDataVerifier, leaf: String = "certs/real-apple-signing-certificate.der",
        intermediate: String = "certs/real-apple-intermediate.der", at time: Date
    ) async throws -> VerificationError.Reason? {
        let leafDER = try F.bytes(leaf)
        let intermediateDER = try F.bytes(intermediate)
        return await F.failure {
            try await verifier.validateChain(leaf: leafDER, intermediate: intermediateDER, at: time)
        }
    }

    private var appleRootVerifier: SignedDataVerifier {
        get throws { try SignedDataVerifier(bundleID: "com.example", appAppleID: 1, environment: .production) }
    }

    @Test func realChain_isValid_onNovember1st2025() async throws {
        #expect(try await chainFailure(verifier: appleRootVerifier, at: Self.november2025) == nil)
    }

    @Test func realChain_withTheRootFromItsFile_isValid() async throws {
        let verifier = try SignedDataVerifier(
            rootCertificates: [try F.bytes("certs/real-apple-root.der")], bundleID: "com.example", appAppleID: nil,
            environment: .sandbox)
        #expect(try await chainFailure(verifier: verifier, at: Self.november2025) == nil)
    }

    @Test(arguments: [
        Date(timeIntervalSince1970: 1_756_684_800),  // 2025-09-01, before the leaf's notBefore
        Date(timeIntervalSince1970: 1_830_297_600),  // 2028-01-01, after the leaf's notAfter
        Date(timeIntervalSince1970: 2_240_524_800),  // 2041-01-01, after the root's notAfter
        // Times no certificate can name, read from a forged signedDate: refused, not a trap
        // in swift-certificates (found by the JWS fuzz target).
        Date(timeIntervalSince1970: 1e12), Date(timeIntervalSince1970: -1e12),
        Date(timeIntervalSince1970: 253_402_300_800),
        Date(timeIntervalSince1970: -62_135_596_801), Date.distantFuture.addingTimeInterval(1e15),
    ])
    func realChain_outsideTheLeafsValidity_isInvalid(_ time: Date) async throws {
        #expect(try await chainFailure(verifier: appleRootVerifier, at: time) == .invalidChain)
    }

    @Test func realChain_atAnotherRoot_isInvalid() async throws {
        let verifier = try F.appleTestVerifier()
        #expect(try await chainFailure(verifier: verifier, at: Self.november2025) == .invalidChain)
    }

    @Test func leafAndIntermediateSwapped_isInvalid() async throws {
        let failure = try await chainFailure(
            verifier: appleRootVerifier, leaf: "certs/real-apple-intermediate.der",
            intermediate: "certs/real-apple-signing-certificate.der", at: Self.november2025)
        #expect(failure == .invalidChain)
    }

    @Test func rootAsIntermediate_isInvalid() async throws {
        // The root issued the intermediate, not the leaf, and lacks the WWDR OID.
        let failure = try await chainFailure(
            verifier: appleRootVerifier, intermediate: "certs/real-apple-root.der", at: Self.november2025)
        #expect(failure == .invalidChain)
    }

    @Test func garbageCertificates_areInvalidChain() async throws {
        let verifier = try appleRootVerifier
        let intermediate = try F.bytes("certs/real-apple-intermediate.der")
        let leaf = try F.bytes("certs/real-apple-signing-certificate.der")
        let truncated = Array(leaf.prefix(leaf.count / 2))
        #expect(
            await F.failure {
                try await verifier.validateChain(leaf: truncated, intermediate: intermediate, at: Self.november2025)
            } == .invalidChain)
        #expect(
            await F.failure {
                try await verifier.validateChain(leaf: leaf, intermediate: [0x30, 0x00], at: Self.november2025)
            } == .invalidChain)
    }
}
