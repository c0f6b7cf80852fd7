import AppStore
import Foundation
import StubStore
import Testing

/// Apple's vectors beside this file, and verifiers and authorities for the signed-data tests.
enum SignedDataFixtures {
    /// `Vectors/`, found from this file's path so tests run from any directory or fresh clone.
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    /// A vector file's bytes.
    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: vectors.appendingPathComponent(path)))
    }

    /// A vector file's text, without surrounding whitespace.
    static func text(_ path: String) throws -> String {
        String(decoding: try bytes(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// April 2023, when Apple's mock data was signed (ASSL pins the same time).
    static let appleVectorsTime = Date(timeIntervalSince1970: 1_681_312_846)

    /// A verifier trusting Apple's test CA, as ASSL's `SignedDataVerifierTests` configure it.
    static func appleTestVerifier(
        environment: AppStoreEnvironment = .sandbox, bundleID: String = "com.example", appAppleID: Int64? = 1234
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: [try bytes("certs/testCA.der")], bundleID: bundleID, appAppleID: appAppleID,
            environment: environment, now: { appleVectorsTime })
    }

    // MARK: Our own authority

    static let notBefore = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01
    static let notAfter = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01
    static let signedDate = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    static let bundleID = "com.example.game"

    static func authority(_ options: TestCertificateAuthority.Options = .init()) throws -> TestCertificateAuthority {
        try TestCertificateAuthority(notBefore: notBefore, notAfter: notAfter, options: options)
    }

    static func verifier(
        trusting authority: TestCertificateAuthority, environment: AppStoreEnvironment = .sandbox,
        bundleID: String = bundleID, appAppleID: Int64? = 9_876_543_210
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: [authority.rootDER], bundleID: bundleID, appAppleID: appAppleID,
            environment: environment, now: { signedDate })
    }

    static func transaction(
        bundleID: String = bundleID, environment: AppStoreEnvironment = .sandbox, signedDate: Date? = signedDate
    ) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            originalTransactionId: "2000000100", transactionId: "2000000123", webOrderLineItemId: "2000000009",
            bundleId: bundleID, productId: "com.example.game.gems100",
            purchaseDate: Date(timeIntervalSince1970: 1_767_225_000),
            originalPurchaseDate: Date(timeIntervalSince1970: 1_767_224_000),
            quantity: 3, type: .consumable, appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138",
            inAppOwnershipType: .purchased, signedDate: signedDate, environment: environment, storefront: "USA",
            storefrontId: "143441", transactionReason: .purchase, currency: "USD", price: 4990,
            appTransactionId: "704289572311531233")
    }

    /// The reason `body` failed with, or `nil` if it succeeded. Any other error is an issue.
    static func failure<T>(_ body: () async throws -> T) async -> VerificationError.Reason? {
        do {
            _ = try await body()
            return nil
        } catch let error as VerificationError {
            return error.reason
        } catch {
            Issue.record("expected a VerificationError, got \(error)")
            return nil
        }
    }
}
