import AppStore
import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
@_spi(CMS) import X509

/// A certificate authority shaped like the one that signs Apple's app receipts, made at runtime:
/// a root, a WWDR-like intermediate carrying `1.2.840.113635.100.6.2.1` and a receipt-signing leaf
/// carrying `1.2.840.113635.100.6.11.1`, all RSA 2048 as Apple's are. It signs receipt payloads into
/// PKCS #7 SignedData containers (swift-certificates' `CMS.sign`), which
/// ``AppStore/AppReceiptVerifier`` accepts when configured with ``rootDER``.
///
/// ```swift
/// let ca = try ReceiptCertificateAuthority(notBefore: .now - 86_400, notAfter: .now + 365 * 86_400)
/// let der = try ca.sign(AppReceipt(environment: .production, bundleID: "com.example.game", creationDate: .now))
/// ```
///
/// For tests and the stub store only: the keys live in memory and are gone with the value.
public struct ReceiptCertificateAuthority: Sendable {
    /// What to change in the chain or the signature, to test that a verifier notices.
    public struct Options: Hashable, Sendable {
        /// Whether the leaf carries the receipt-signing OID.
        public var leafHasReceiptSigningOID = true
        /// Whether the intermediate carries the WWDR OID.
        public var intermediateHasWWDROID = true
        /// SHA-256 (WWDR G5, since 2025-01-24), or SHA-1 (the intermediates before it).
        public var usesSHA1 = false
        /// The common names' prefix.
        public var name = "Stub App Store"

        /// Creates options; the defaults make a chain Apple's rules accept, signed as G5 signs.
        public init() {}
    }

    /// The root CA certificate, DER: configure verifiers with it.
    public let rootDER: [UInt8]
    /// The intermediate CA certificate, DER.
    public let intermediateDER: [UInt8]
    /// The signing certificate, DER.
    public let leafDER: [UInt8]
    private let root: Certificate
    private let intermediate: Certificate
    private let leaf: Certificate
    private let leafKey: Certificate.PrivateKey
    private let signatureAlgorithm: Certificate.SignatureAlgorithm

    /// Generates fresh RSA keys and the three certificates (a few hundred milliseconds).
    /// - Parameters:
    ///   - notBefore: Start of every certificate's validity.
    ///   - notAfter: End of every certificate's validity.
    ///   - options: What to change; by default nothing.
    public init(notBefore: Date, notAfter: Date, options: Options = .init()) throws {
        let algorithm: Certificate.SignatureAlgorithm =
            options.usesSHA1 ? .sha1WithRSAEncryption : .sha256WithRSAEncryption
        let keys = try (0..<3).map { _ in Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: .bits2048)) }
        let names = try ["Root CA", "Worldwide Developer Relations CA", "Receipt Signing"].map { suffix in
            try DistinguishedName {
                OrganizationName(options.name)
                CommonName("\(options.name) \(suffix)")
            }
        }
        func certificate(
            _ index: Int, issuer: Int, isCA: Bool, marker: ASN1ObjectIdentifier?
        ) throws -> Certificate {
            let publicKey = keys[index].publicKey
            return try Certificate(
                version: .v3, serialNumber: .init(), publicKey: publicKey, notValidBefore: notBefore,
                notValidAfter: notAfter, issuer: names[issuer], subject: names[index], signatureAlgorithm: algorithm,
                extensions: try Certificate.Extensions {
                    if isCA {
                        Critical(BasicConstraints.isCertificateAuthority(maxPathLength: index == 0 ? nil : 0))
                        Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    } else {
                        Critical(BasicConstraints.notCertificateAuthority)
                        Critical(KeyUsage(digitalSignature: true))
                    }
                    SubjectKeyIdentifier(hash: publicKey)
                    if let marker {
                        // Non-critical, value NULL: how Apple marks its certificates.
                        Certificate.Extension(oid: marker, critical: false, value: [0x05, 0x00])
                    }
                },
                issuerPrivateKey: keys[issuer])
        }
        root = try certificate(0, issuer: 0, isCA: true, marker: nil)
        intermediate = try certificate(
            1, issuer: 0, isCA: true,
            marker: options.intermediateHasWWDROID ? TestCertificateAuthority.wwdrIntermediateOID : nil)
        leaf = try certificate(
            2, issuer: 1, isCA: false,
            marker: options.leafHasReceiptSigningOID ? TestCertificateAuthority.receiptSigningOID : nil)
        rootDER = try Self.der(root)
        intermediateDER = try Self.der(intermediate)
        leafDER = try Self.der(leaf)
        leafKey = keys[2]
        signatureAlgorithm = algorithm
    }

    /// Signs `payload` into a PKCS #7 SignedData with the content attached and no signed
    /// attributes, as Apple signs receipts.
    /// - Parameters:
    ///   - payload: The content: a receipt's attribute SET.
    ///   - includingChain: False puts only the leaf in the container, as a forger without the
    ///     intermediate would.
    /// - Returns: The container's DER.
    public func sign(payload: [UInt8], includingChain: Bool = true) throws -> [UInt8] {
        try CMS.sign(
            payload, signatureAlgorithm: signatureAlgorithm,
            additionalIntermediateCertificates: includingChain ? [intermediate, root] : [], certificate: leaf,
            privateKey: leafKey, detached: false)
    }

    /// Signs `receipt`: its DER payload (see ``AppStore/AppReceipt/derEncodedPayload(opaqueValue:)``) in PKCS #7.
    /// - Parameter receipt: What the receipt says.
    /// - Returns: The container's DER.
    public func sign(_ receipt: AppReceipt) throws -> [UInt8] {
        try sign(payload: try receipt.derEncodedPayload(opaqueValue: (0..<16).map { _ in .random(in: 0...255) }))
    }

    private static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
