import SwiftASN1
import X509

/// One `SignerInfo` of a `SignedData` ([RFC 5652 §5.3](https://www.rfc-editor.org/rfc/rfc5652#section-5.3)).
struct PKCS7SignerInfo: Sendable {
    /// How the signer names its certificate.
    enum Identifier: Sendable {
        case issuerAndSerialNumber(DistinguishedName, Certificate.SerialNumber)
        case subjectKeyIdentifier(ArraySlice<UInt8>)
    }

    static let messageDigestOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 4]

    var identifier: Identifier
    var digestAlgorithm: ASN1ObjectIdentifier
    /// `signedAttrs` as signed: DER with the SET tag, not the `[0]` it is stored under (RFC 5652 §5.4).
    var signedAttributes: [UInt8]?
    /// The `message-digest` signed attribute, when there are signed attributes.
    var messageDigest: ArraySlice<UInt8>?
    var signatureAlgorithm: ASN1ObjectIdentifier
    var signature: ArraySlice<UInt8>

    init(berEncoded node: ASN1Node) throws {
        (
            identifier, digestAlgorithm, signedAttributes, messageDigest, signatureAlgorithm, signature
        ) = try BER.sequence(node, identifier: .sequence) { nodes in
            _ = try Int(berEncoded: &nodes)  // version: follows from the identifier's form
            guard let sid = nodes.next() else { throw ASN1Error.invalidASN1Object(reason: "SignerInfo lacks its sid") }
            let identifier = try Self.identifier(sid)
            guard let digest = nodes.next() else {
                throw ASN1Error.invalidASN1Object(reason: "SignerInfo lacks its digestAlgorithm")
            }
            let digestAlgorithm = try PKCS7SignedData.algorithm(digest)
            let attributes = BER.optionalImplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) {
                $0
            }
            guard let algorithm = nodes.next() else {
                throw ASN1Error.invalidASN1Object(reason: "SignerInfo lacks its signatureAlgorithm")
            }
            let signatureAlgorithm = try PKCS7SignedData.algorithm(algorithm)
            let signature = try ASN1OctetString(berEncoded: &nodes).bytes
            while nodes.next() != nil {}  // unsignedAttrs: not covered by the signature, not needed
            guard let attributes else { return (identifier, digestAlgorithm, nil, nil, signatureAlgorithm, signature) }
            var signed = Array(attributes.encodedBytes)
            signed[0] = 0x31  // SET OF, constructed
            return (
                identifier, digestAlgorithm, signed, try Self.messageDigest(in: attributes), signatureAlgorithm,
                signature
            )
        }
    }

    private static func identifier(_ node: ASN1Node) throws -> Identifier {
        if node.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
            guard case .primitive(let bytes) = node.content else {
                throw ASN1Error.invalidASN1Object(reason: "subjectKeyIdentifier is constructed")
            }
            return .subjectKeyIdentifier(bytes)
        }
        return try BER.sequence(node, identifier: .sequence) { nodes in
            guard let issuer = nodes.next(), let serial = nodes.next(), serial.identifier == .integer,
                case .primitive(let serialBytes) = serial.content
            else { throw ASN1Error.invalidASN1Object(reason: "issuerAndSerialNumber is incomplete") }
            return .issuerAndSerialNumber(
                try DistinguishedName(derEncoded: issuer), Certificate.SerialNumber(bytes: serialBytes))
        }
    }

    /// The value of the `message-digest` attribute among `signedAttrs`; nil when it is missing.
    private static func messageDigest(in node: ASN1Node) throws -> ArraySlice<UInt8>? {
        guard case .constructed(let attributes) = node.content else {
            throw ASN1Error.invalidASN1Object(reason: "signedAttrs is not a SET")
        }
        for attribute in attributes {
            let digest = try BER.sequence(attribute, identifier: .sequence) { nodes -> ArraySlice<UInt8>? in
                let type = try ASN1ObjectIdentifier(berEncoded: &nodes)
                guard let values = nodes.next(), case .constructed(let set) = values.content else {
                    throw ASN1Error.invalidASN1Object(reason: "attribute \(type) has no values")
                }
                guard type == Self.messageDigestOID, let first = set.first(where: { _ in true }) else { return nil }
                return try ASN1OctetString(berEncoded: first).bytes
            }
            if let digest { return digest }
        }
        return nil
    }
}
