import SwiftASN1

extension HuaweiPublicKey {
    /// The modulus and public exponent of an RSA SubjectPublicKeyInfo, read with swift-asn1.
    ///
    /// Not swift-crypto's `_RSA.Signing.PublicKey(derRepresentation:)`: given bytes that are
    /// neither SPKI nor PKCS #1 it frees its key twice (3.12.3, `RSA_boring.swift`), and the
    /// process aborts, now and then, on a bad `IAP_HUAWEI_PUBLIC_KEY`.
    static func rsaComponents(_ der: [UInt8]) -> (modulus: ArraySlice<UInt8>, exponent: ArraySlice<UInt8>)? {
        guard let spki = try? DER.parse(der), spki.identifier == .sequence,
            case .constructed(let parts) = spki.content
        else { return nil }
        let fields = Array(parts)
        guard fields.count == 2, fields[0].identifier == .sequence,
            case .constructed(let algorithm) = fields[0].content,
            let oid = algorithm.first(where: { _ in true }),
            (try? ASN1ObjectIdentifier(derEncoded: oid)) == rsaEncryption,
            let bits = try? ASN1BitString(derEncoded: fields[1]), bits.paddingBits == 0,
            let key = try? DER.parse(Array(bits.bytes)), key.identifier == .sequence,
            case .constructed(let integers) = key.content
        else { return nil }
        let numbers = Array(integers).compactMap(positiveInteger)
        guard numbers.count == 2, Array(integers).count == 2 else { return nil }
        return (numbers[0], numbers[1])
    }

    /// 1.2.840.113549.1.1.1
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]

    /// The magnitude of a positive INTEGER, without the sign's leading zero.
    private static func positiveInteger(_ node: ASN1Node) -> ArraySlice<UInt8>? {
        guard node.identifier == .integer, case .primitive(let bytes) = node.content, let first = bytes.first,
            first & 0x80 == 0
        else { return nil }
        let magnitude = bytes.drop { $0 == 0 }
        return magnitude.isEmpty ? nil : magnitude
    }
}
