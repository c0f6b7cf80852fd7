import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority shaped like Apple's App Store signing chain, made at runtime, so the
/// stub store can sign StoreKit 2 data that ``AppStore/SignedDataVerifier`` accepts when
/// configured with ``rootDER``.
///
/// Three P-256 certificates: a self-signed root CA; an intermediate CA (path length 0) carrying
/// Apple's WWDR marker `1.2.840.113635.100.6.2.1`; and a signing leaf carrying Apple's
/// receipt-signing marker `1.2.840.113635.100.6.11.1`. The markers are non-critical extensions
/// whose value is an ASN.1 NULL, as in Apple's certificates. Basic constraints and key usage are
/// critical, so RFC 5280 validation passes between `notBefore` and `notAfter`.
///
/// ```swift
/// let ca = try TestCertificateAuthority(notBefore: .now - 86_400, notAfter: .now + 86_400 * 365)
/// let jws = ca.signer.signTransaction(JWSTransactionDecodedPayload(transactionId: "1", ...))
/// let verifier = try SignedDataVerifier(rootCertificates: [ca.rootDER], bundleID: "com.example.game",
///                                       appAppleID: nil, environment: .sandbox)
/// ```
///
/// For tests only: the keys live in memory and are gone with the value.
public struct TestCertificateAuthority: Sendable {
    /// What to leave out of the chain, to test that a verifier notices.
    public struct Options: Hashable, Sendable {
        /// Whether the leaf carries the receipt-signing OID `1.2.840.113635.100.6.11.1`.
        public var leafHasReceiptSigningOID: Bool
        /// Whether the intermediate carries the WWDR OID `1.2.840.113635.100.6.2.1`.
        public var intermediateHasWWDROID: Bool
        /// The common names' prefix, to tell authorities apart.
        public var name: String

        /// Creates options; the defaults make a chain Apple's rules accept.
        /// - Parameters:
        ///   - leafHasReceiptSigningOID: Whether the leaf carries Apple's receipt-signing OID.
        ///   - intermediateHasWWDROID: Whether the intermediate carries Apple's WWDR OID.
        ///   - name: The common names' prefix.
        public init(
            leafHasReceiptSigningOID: Bool = true, intermediateHasWWDROID: Bool = true, name: String = "Stub App Store"
        ) {
            self.leafHasReceiptSigningOID = leafHasReceiptSigningOID
            self.intermediateHasWWDROID = intermediateHasWWDROID
            self.name = name
        }
    }

    /// Apple's receipt-signing marker, on the leaf.
    public static let receiptSigningOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]
    /// Apple's WWDR intermediate marker.
    public static let wwdrIntermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]

    /// The root CA certificate, DER: configure verifiers with it.
    public let rootDER: [UInt8]
    /// The intermediate CA certificate, DER.
    public let intermediateDER: [UInt8]
    /// The signing certificate, DER.
    public let leafDER: [UInt8]
    /// Signs with the leaf's key and puts leaf, intermediate and root in `x5c`.
    public let signer: JWSSigner
    /// Start of every certificate's validity.
    public let notBefore: Date
    /// End of every certificate's validity.
    public let notAfter: Date

    /// Generates fresh keys and the three certificates.
    /// - Parameters:
    ///   - notBefore: Start of every certificate's validity.
    ///   - notAfter: End of every certificate's validity.
    ///   - options: What to leave out; by default nothing.
    /// - Throws: If swift-certificates cannot build a certificate (e.g. `notAfter` before `notBefore`).
    public init(notBefore: Date, notAfter: Date, options: Options = .init()) throws {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            OrganizationName(options.name)
            CommonName("\(options.name) Root CA")
        }
        let intermediateName = try DistinguishedName {
            OrganizationName(options.name)
            CommonName("\(options.name) Intermediate CA")
        }
        let leafName = try DistinguishedName {
            OrganizationName(options.name)
            CommonName("\(options.name) Receipt Signing")
        }

        let rootPublicKey = Certificate.PublicKey(rootKey.publicKey)
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: rootPublicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: rootName, subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: rootPublicKey)
            },
            issuerPrivateKey: .init(rootKey))

        let intermediatePublicKey = Certificate.PublicKey(intermediateKey.publicKey)
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: intermediatePublicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: rootName, subject: intermediateName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: intermediatePublicKey)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: rootPublicKey).keyIdentifier)
                if options.intermediateHasWWDROID {
                    Self.appleMarker(Self.wwdrIntermediateOID)
                }
            },
            issuerPrivateKey: .init(rootKey))

        let leafPublicKey = Certificate.PublicKey(leafKey.publicKey)
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: leafPublicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: intermediateName, subject: leafName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                SubjectKeyIdentifier(hash: leafPublicKey)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: intermediatePublicKey).keyIdentifier)
                if options.leafHasReceiptSigningOID {
                    Self.appleMarker(Self.receiptSigningOID)
                }
            },
            issuerPrivateKey: .init(intermediateKey))

        self.rootDER = try Self.der(root)
        self.intermediateDER = try Self.der(intermediate)
        self.leafDER = try Self.der(leaf)
        self.signer = JWSSigner(privateKey: leafKey, certificateChain: [leafDER, intermediateDER, rootDER])
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// A non-critical extension whose value is an ASN.1 NULL (`05 00`): how Apple marks its certificates.
    private static func appleMarker(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension {
        Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
    }

    private static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
