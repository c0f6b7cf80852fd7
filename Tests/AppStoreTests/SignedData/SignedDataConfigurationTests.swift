import AppStore
import Foundation
import Testing

@Suite("SignedDataVerifier configuration")
struct SignedDataConfigurationTests {
    typealias F = SignedDataFixtures

    private func configurationFailure(
        _ body: () throws -> SignedDataVerifier
    ) -> SignedDataConfigurationError.Reason? {
        do {
            _ = try body()
            return nil
        } catch let error as SignedDataConfigurationError {
            return error.reason
        } catch {
            Issue.record("expected a SignedDataConfigurationError, got \(error)")
            return nil
        }
    }

    @Test func production_withoutAppAppleID_isRefused() {
        #expect(
            configurationFailure {
                try SignedDataVerifier(bundleID: "com.example", appAppleID: nil, environment: .production)
            } == .missingAppAppleID)
    }

    @Test func production_withAppAppleID_andDefaultRoot_isAccepted() throws {
        let verifier = try SignedDataVerifier(bundleID: "com.example", appAppleID: 1234, environment: .production)
        #expect(verifier.environment == .production)
        #expect(verifier.appAppleID == 1234)
    }

    @Test func garbageRoot_isRefused() {
        #expect(
            configurationFailure {
                try SignedDataVerifier(
                    rootCertificates: [[0x30, 0x03, 0x02, 0x01, 0x01]], bundleID: "com.example", appAppleID: nil,
                    environment: .sandbox)
            } == .invalidRootCertificate)
        #expect(
            configurationFailure {
                try SignedDataVerifier(
                    rootCertificates: [Array("not a certificate".utf8)], bundleID: "com.example", appAppleID: nil,
                    environment: .sandbox)
            } == .invalidRootCertificate)
    }

    @Test func noRoots_isRefused() {
        #expect(
            configurationFailure {
                try SignedDataVerifier(
                    rootCertificates: [], bundleID: "com.example", appAppleID: nil, environment: .sandbox)
            } == .noRootCertificates)
    }

    @Test func emptyBundleID_isRefused() {
        #expect(
            configurationFailure {
                try SignedDataVerifier(bundleID: "", appAppleID: nil, environment: .sandbox)
            } == .emptyBundleID)
    }

    @Test(arguments: [AppStoreEnvironment.xcode, .localTesting])
    func unsignedEnvironments_areRefused(_ environment: AppStoreEnvironment) {
        #expect(
            configurationFailure {
                try SignedDataVerifier(bundleID: "com.example", appAppleID: 1, environment: environment)
            } == .unsupportedEnvironment)
    }
}
