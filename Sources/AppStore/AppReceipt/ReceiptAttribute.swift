import Foundation
import SwiftASN1

/// One entry of a receipt's attribute SET:
/// `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
///
/// `value` holds another DER value (a UTF8String, an IA5String date, an INTEGER, or for field 17
/// a whole SET of attributes), read by the accessors below.
struct ReceiptAttribute: BERImplicitlyTaggable, DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var type: Int
    var version: Int
    var value: ArraySlice<UInt8>

    init(type: Int, version: Int = 1, value: ArraySlice<UInt8>) {
        self.type = type
        self.version = version
        self.value = value
    }

    /// An attribute whose value is `value`'s DER encoding.
    init(type: Int, encoding value: any DERSerializable) throws {
        var serializer = DER.Serializer()
        try serializer.serialize(value)
        self.init(type: type, value: serializer.serializedBytes[...])
    }

    init(derEncoded node: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DER.sequence(node, identifier: identifier) { nodes in
            Self(
                type: try Int(derEncoded: &nodes), version: try Int(derEncoded: &nodes),
                value: try ASN1OctetString(derEncoded: &nodes).bytes)
        }
    }

    init(berEncoded node: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(node, identifier: identifier) { nodes in
            Self(
                type: try Int(berEncoded: &nodes), version: try Int(berEncoded: &nodes),
                value: try ASN1OctetString(berEncoded: &nodes).bytes)
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(type)
            try coder.serialize(version)
            try coder.serialize(ASN1OctetString(contentBytes: value))
        }
    }

    // MARK: Reading the value

    /// The value as text: a UTF8String, or an IA5String (dates); nil for an empty value.
    func string() throws -> String? {
        guard !value.isEmpty else { return nil }
        let node = try BER.parse(value)
        switch node.identifier {
        case .utf8String: return String(try ASN1UTF8String(berEncoded: node))
        case .ia5String: return String(try ASN1IA5String(berEncoded: node))
        default: throw ASN1Error.unexpectedFieldType(node.identifier)
        }
    }

    /// The value as an IA5String RFC 3339 date; nil when empty, as Apple leaves 1708 and 1712
    /// for products that never expire or were never refunded.
    func date() throws -> ReceiptDateValue {
        guard let text = try string(), !text.isEmpty else { return .absent }
        guard let date = ReceiptDate.parse(text) else { return .unreadable(text) }
        return .date(date)
    }

    /// The value as an INTEGER.
    func integer() throws -> Int {
        try Int(berEncoded: try BER.parse(value))
    }

    /// The value as a nested attribute SET (field 17).
    func attributes() throws -> [ReceiptAttribute] {
        try ReceiptAttribute.set(in: try BER.parse(value))
    }

    /// The attributes of a SET node. Read child by child rather than with `DER.set`, which
    /// insists on DER's sort order: the signature, not the encoding, is what makes a receipt good.
    static func set(in node: ASN1Node) throws -> [ReceiptAttribute] {
        guard node.identifier == .set, case .constructed(let children) = node.content else {
            throw ASN1Error.unexpectedFieldType(node.identifier)
        }
        return try children.map { try ReceiptAttribute(berEncoded: $0) }
    }
}

/// A date field as read: missing, a date, or text that is not one.
enum ReceiptDateValue: Hashable, Sendable {
    case absent
    case date(Date)
    case unreadable(String)
}
