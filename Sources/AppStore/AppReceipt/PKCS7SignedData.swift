import SwiftASN1
import X509

/// A PKCS #7 / CMS `SignedData` container with its content attached: what an app receipt is
/// ([RFC 5652 §5](https://www.rfc-editor.org/rfc/rfc5652#section-5)).
///
/// Read with swift-asn1's BER parser, since receipts Xcode signs use indefinite lengths (DER is
/// a subset). swift-certificates keeps its own CMS types internal and its `CMS.isValidSignature`
/// refuses the `rsaEncryption` signature algorithm Apple's signer infos name, so the container
/// is read here and the signature checked with swift-certificates' public key API.
struct PKCS7SignedData: Sendable {
    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]

    /// `digestAlgorithms`: the digests the signers use.
    var digestAlgorithms: [ASN1ObjectIdentifier]
    /// `encapContentInfo.eContentType`; `id-data` for a receipt.
    var contentType: ASN1ObjectIdentifier
    /// `encapContentInfo.eContent`: the signed bytes (the receipt's attribute SET).
    var content: ArraySlice<UInt8>?
    /// `certificates`: the signer's certificate and, in Apple's receipts, its intermediate and root.
    var certificates: [Certificate]
    /// `signerInfos`; a receipt has exactly one.
    var signerInfos: [PKCS7SignerInfo]

    init(
        digestAlgorithms: [ASN1ObjectIdentifier], contentType: ASN1ObjectIdentifier, content: ArraySlice<UInt8>?,
        certificates: [Certificate], signerInfos: [PKCS7SignerInfo]
    ) {
        self.digestAlgorithms = digestAlgorithms
        self.contentType = contentType
        self.content = content
        self.certificates = certificates
        self.signerInfos = signerInfos
    }

    /// Parses `ContentInfo { contentType id-signedData, content [0] EXPLICIT SignedData }`.
    /// - Throws: swift-asn1's and swift-certificates' errors for bytes that are not such a container.
    init(berEncoded bytes: ArraySlice<UInt8>) throws {
        let root = try BER.parse(bytes)
        self = try BER.sequence(root, identifier: .sequence) { nodes in
            let type = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard type == Self.signedDataOID else {
                throw ASN1Error.invalidASN1Object(reason: "content type \(type) is not id-signedData")
            }
            return try BER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                try Self(signedData: node)
            }
        }
    }

    private init(signedData node: ASN1Node) throws {
        self = try BER.sequence(node, identifier: .sequence) { nodes in
            _ = try Int(berEncoded: &nodes)  // version: 1 for receipts, and not needed to verify
            guard let digests = nodes.next(), digests.identifier == .set, case .constructed(let set) = digests.content
            else { throw ASN1Error.invalidASN1Object(reason: "SignedData lacks its digestAlgorithms SET") }
            let digestAlgorithms = try set.map { try Self.algorithm($0) }
            guard let encapsulated = nodes.next() else {
                throw ASN1Error.invalidASN1Object(reason: "SignedData lacks its encapContentInfo")
            }
            let (contentType, content) = try BER.sequence(encapsulated, identifier: .sequence) { info in
                let type = try ASN1ObjectIdentifier(berEncoded: &info)
                let content = try BER.optionalExplicitlyTagged(&info, tagNumber: 0, tagClass: .contextSpecific) {
                    try ASN1OctetString(berEncoded: $0).bytes
                }
                return (type, content)
            }
            let certificates =
                try BER.optionalImplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                    try Self.certificates(in: node)
                } ?? []
            // CRLs are not used to verify receipts: Apple's chains are checked without revocation.
            _ = BER.optionalImplicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { $0 }
            guard let signers = nodes.next(), signers.identifier == .set, case .constructed(let infos) = signers.content
            else { throw ASN1Error.invalidASN1Object(reason: "SignedData lacks its signerInfos SET") }
            return Self(
                digestAlgorithms: digestAlgorithms, contentType: contentType, content: content,
                certificates: certificates, signerInfos: try infos.map { try PKCS7SignerInfo(berEncoded: $0) })
        }
    }

    /// The X.509 certificates of a `certificates` field; other certificate choices (attribute
    /// certificates, tagged) are skipped. Each is parsed as DER, as RFC 5280 requires.
    private static func certificates(in node: ASN1Node) throws -> [Certificate] {
        guard case .constructed(let children) = node.content else {
            throw ASN1Error.invalidASN1Object(reason: "certificates is not a SET")
        }
        return try children.filter { $0.identifier == .sequence }.map {
            try Certificate(derEncoded: Array($0.encodedBytes))
        }
    }

    /// The OID of an `AlgorithmIdentifier ::= SEQUENCE { algorithm OID, parameters ANY OPTIONAL }`.
    static func algorithm(_ node: ASN1Node) throws -> ASN1ObjectIdentifier {
        try BER.sequence(node, identifier: .sequence) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            while nodes.next() != nil {}  // parameters: NULL or absent for the algorithms used here
            return oid
        }
    }

    /// The certificate the signer names, by issuer and serial number or by subject key identifier.
    func certificate(of signer: PKCS7SignerInfo) -> Certificate? {
        certificates.first { certificate in
            switch signer.identifier {
            case .issuerAndSerialNumber(let issuer, let serial):
                certificate.issuer == issuer && certificate.serialNumber == serial
            case .subjectKeyIdentifier(let identifier):
                (try? certificate.extensions.subjectKeyIdentifier)?.keyIdentifier == identifier
            }
        }
    }
}
