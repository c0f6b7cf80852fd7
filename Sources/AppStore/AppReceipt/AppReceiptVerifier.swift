import Foundation
import PipelineCore
import SwiftASN1
import X509

/// Verifies legacy app receipts locally, without `verifyReceipt`: the PKCS #7 signature, the
/// chain leaf → WWDR intermediate → Apple Inc. Root CA at the receipt's creation date, Apple's
/// OIDs on leaf and intermediate, and the bundle id.
///
/// ```swift
/// let verifier = try AppReceiptVerifier(configuration: .init(bundleID: "com.example.game"))
/// let receipt = try await verifier.verify(base64: receiptData)
/// for purchase in receipt.inAppPurchases { ... }
/// ```
///
/// Checks run in this order, and the first that fails is thrown: the container parses, the
/// signature verifies (before anything signed is believed), the content is a receipt, an Xcode
/// receipt is signed by a trusted Xcode certificate, the chain holds, the bundle id matches.
/// A local receipt carries no revocation data: refunds still come from Apple (notifications,
/// subscription checks).
public struct AppReceiptVerifier: Sendable {
    /// What is trusted and required.
    public let configuration: Configuration
    private let chain: CertificateChainValidator
    private let xcodeCertificates: Set<[UInt8]>

    /// Creates a verifier.
    /// - Parameter configuration: Roots, bundle id, validation time, Xcode certificates.
    /// - Throws: ``SignedDataConfigurationError`` when there is no root, or a root or Xcode
    ///   certificate is not a DER certificate.
    public init(configuration: Configuration) throws(SignedDataConfigurationError) {
        self.configuration = configuration
        self.chain = try CertificateChainValidator(rootCertificates: configuration.rootCertificates)
        for (index, der) in configuration.xcodeCertificates.enumerated()
        where (try? Certificate(derEncoded: der)) == nil {
            throw SignedDataConfigurationError(
                .invalidRootCertificate, "Xcode certificate \(index) is not a DER X.509 certificate")
        }
        self.xcodeCertificates = Set(configuration.xcodeCertificates)
    }

    /// Verifies a receipt as the intake stores it: base64 (whitespace ignored).
    /// - Parameter base64: The `receipt_data`.
    /// - Returns: What the receipt says, once everything holds.
    /// - Throws: ``AppReceiptError``; not base64 is ``AppReceiptError/Reason/malformed``.
    public func verify(base64: String) async throws(AppReceiptError) -> AppReceipt {
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters), !data.isEmpty else {
            throw .malformed("receipt data is not base64")
        }
        return try await verify(der: Array(data))
    }

    /// Verifies a receipt's DER (or BER) bytes.
    /// - Parameter der: The PKCS #7 container.
    /// - Returns: What the receipt says, once everything holds.
    /// - Throws: ``AppReceiptError`` for the first check that fails.
    public func verify(der: [UInt8]) async throws(AppReceiptError) -> AppReceipt {
        let container = try Self.container(der)
        let signer = try container.verifySignature()
        // The content exists: verifySignature checked it.
        let receipt = try AppReceiptPayload.decode(container.content ?? [])
        if receipt.environment == .xcode {
            try checkXcode(signer)
        } else {
            try await checkChain(signer, in: container, receipt: receipt)
        }
        try checkBundle(receipt)
        return receipt
    }

    // MARK: Steps, shared with inspection

    static func container(_ der: [UInt8]) throws(AppReceiptError) -> PKCS7SignedData {
        do {
            return try PKCS7SignedData(berEncoded: der[...])
        } catch {
            throw .malformed("not a PKCS #7 SignedData container (\(error))")
        }
    }

    func checkXcode(_ signer: Certificate) throws(AppReceiptError) {
        guard let der = try? signer.derBytes(), xcodeCertificates.contains(der) else {
            throw AppReceiptError(
                .xcodeNotAllowed,
                xcodeCertificates.isEmpty
                    ? "an Xcode (StoreKit testing) receipt, and no Xcode certificate is trusted"
                    : "an Xcode receipt signed by a certificate that is not among the trusted Xcode certificates")
        }
    }

    /// The moment the chain is checked at, for `receipt`.
    func validationTime(for receipt: AppReceipt) throws(AppReceiptError) -> Date {
        switch configuration.validationTime {
        case .receiptCreationDate:
            guard let created = receipt.creationDate else {
                throw .malformed("no creation date (field 12) to check the chain at")
            }
            return created
        case .fixed(let date): return date
        case .now: return Date()
        }
    }

    func checkChain(
        _ signer: Certificate, in container: PKCS7SignedData, receipt: AppReceipt
    ) async throws(AppReceiptError) {
        let time = try validationTime(for: receipt)
        do {
            try await chain.validate(
                leaf: signer, intermediates: container.certificates.filter { $0 != signer }, at: time)
        } catch {
            throw .chainInvalid(error.message)
        }
    }

    func checkBundle(_ receipt: AppReceipt) throws(AppReceiptError) {
        guard let expected = configuration.bundleID, receipt.bundleID != expected else { return }
        if let app = receipt.bundleID.flatMap({ configuration.otherApps.byIdentity[$0] }) {
            throw AppReceiptError(.appMismatch, "belongs to \(app)")
        }
        throw AppReceiptError(
            .bundleMismatch, "the receipt is for '\(receipt.bundleID ?? "")', not '\(expected)'")
    }
}

extension Certificate {
    /// The certificate's DER encoding.
    func derBytes() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(self)
        return serializer.serializedBytes
    }
}
