import Crypto
import Foundation
@_spi(FixedExpiryValidationTime) import X509

/// Validates leaf ← intermediate ← configured root with swift-certificates' `Verifier`:
/// RFC 5280 (signatures, validity at a given time, basic constraints, name constraints, critical
/// extensions) plus ``AppleSigningChainPolicy``.
///
/// No revocation checks: that needs OCSP, a network call per chain, and Apple's own library does
/// it only when asked to.
struct CertificateChainValidator: Sendable {
    private let roots: CertificateStore

    init(rootCertificates: [[UInt8]]) throws(SignedDataConfigurationError) {
        guard !rootCertificates.isEmpty else {
            throw SignedDataConfigurationError(.noRootCertificates, "at least one root certificate is needed")
        }
        var roots: [Certificate] = []
        for (index, der) in rootCertificates.enumerated() {
            do {
                roots.append(try Certificate(derEncoded: der))
            } catch {
                throw SignedDataConfigurationError(
                    .invalidRootCertificate, "root certificate \(index) is not a DER X.509 certificate: \(error)")
            }
        }
        self.roots = CertificateStore(roots)
    }

    /// A chain that validated: the leaf's key, and when every certificate of it (the root
    /// included) is valid, so that the chain holds at any time in that span.
    struct ValidatedChain: Sendable {
        /// The leaf's key, X9.63 (the key type itself is not `Sendable`).
        var leafKeyX963: [UInt8]
        var validity: ClosedRange<Date>

        var leafKey: P256.Signing.PublicKey? { try? P256.Signing.PublicKey(x963Representation: leafKeyX963) }
    }

    /// Validates the chain and returns the leaf's key.
    /// - Parameters:
    ///   - leaf: The signing certificate, DER (`x5c[0]`).
    ///   - intermediate: Its issuer, DER (`x5c[1]`).
    ///   - validationTime: When every certificate must have been valid.
    /// - Returns: The leaf's P-256 key, to check an ES256 signature with, and the span the chain is valid in.
    /// - Throws: ``VerificationError/Reason/invalidChain``.
    func validate(
        leaf: [UInt8], intermediate: [UInt8], at validationTime: Date
    ) async throws(VerificationError) -> ValidatedChain {
        let leafCertificate: Certificate
        let intermediateCertificate: Certificate
        do {
            leafCertificate = try Certificate(derEncoded: leaf)
        } catch {
            throw .invalidChain("leaf is not a DER X.509 certificate")
        }
        do {
            intermediateCertificate = try Certificate(derEncoded: intermediate)
        } catch {
            throw .invalidChain("intermediate is not a DER X.509 certificate")
        }
        let chain = try await validate(
            leaf: leafCertificate, intermediates: [intermediateCertificate], at: validationTime)
        guard let key = P256.Signing.PublicKey(leafCertificate.publicKey) else {
            throw .invalidChain("leaf key is not P-256, so it cannot make ES256 signatures")
        }
        // RFC 5280's expiry check is the only time-dependent one: within every certificate's
        // validity the same chain validates again.
        let from = chain.map(\.notValidBefore).max() ?? validationTime
        let until = chain.map(\.notValidAfter).min() ?? validationTime
        return ValidatedChain(leafKeyX963: Array(key.x963Representation), validity: from...max(from, until))
    }

    /// Validates that `leaf` chains through one of `intermediates` to a configured root, by
    /// RFC 5280 and ``AppleSigningChainPolicy``, at `validationTime`. JWS chains (`x5c`) and app
    /// receipts (the PKCS #7 `certificates`) share this, and Apple's rules.
    /// - Parameters:
    ///   - leaf: The signing certificate.
    ///   - intermediates: Untrusted certificates to build the path from; a root among them is
    ///     not trusted for being there (Apple's receipts carry their root).
    ///   - validationTime: When every certificate must have been valid.
    /// - Returns: The validated chain, leaf first, root last.
    /// - Throws: ``VerificationError/Reason/invalidChain`` with the policies' reasons.
    @discardableResult
    func validate(
        leaf: Certificate, intermediates: [Certificate], at validationTime: Date
    ) async throws(VerificationError) -> [Certificate] {
        // The time comes from the signed data itself, not yet verified. swift-certificates
        // traps on a time no certificate can name (before year 1 or after 9999): refuse it
        // instead (found by the JWS fuzz target: a signedDate of 10^15 ms crashed the validator).
        guard Self.representable.contains(validationTime.timeIntervalSince1970) else {
            throw .invalidChain("the time to check the chain at is outside the years 1-9999")
        }
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: validationTime)
            AppleSigningChainPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates))
        switch result {
        case .validCertificate(let chain):
            return Array(chain)
        case .couldNotValidate(let failures):
            let reasons = Set(failures.map { Self.brief($0.policyFailureReason.description) }).sorted()
            let detail =
                reasons.isEmpty ? "no path from the leaf to a configured root" : reasons.joined(separator: "; ")
            throw .invalidChain("chain does not validate at \(validationTime): \(detail)")
        }
    }

    /// swift-certificates describes a failing certificate in full, extensions and all; the reason
    /// travels in receipt statuses and dead letters, so each certificate is named by its subject.
    static func brief(_ reason: String) -> String {
        reason.replacing(/Certificate\(version: .*?subject: "(?<subject>[^"]*)".*?\]\)/) { match in
            "\"\(match.output.subject)\""
        }
    }

    /// 0001-01-01T00:00:00Z through 9999-12-31T23:59:59Z, in seconds since 1970.
    static let representable: ClosedRange<TimeInterval> = -62_135_596_800...253_402_300_799
}
