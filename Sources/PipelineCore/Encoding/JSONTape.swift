import Foundation

/// A JSON document read once into a flat list of its values (a "tape"), for the hot paths that
/// decode one known shape again and again, such as Apple's `verifyReceipt` answers in the
/// validator, where `JSONDecoder`'s containers cost a sixth of the process (BENCHMARKS.md,
/// issue 29, seventeenth session). Nothing is copied out of the document until it is asked for.
///
/// It reads strict RFC 8259 JSON within limits of its own, and refuses (the initialiser
/// returns nil, or a lookup throws ``Unsure``) whatever it would rather not judge: nesting
/// deeper than 64, an escaped surrogate, a key written with escapes or given twice among the
/// members read, a number asked for as an integer that is not written as one. A caller then
/// decodes the same bytes with `JSONDecoder`, so what is accepted and what it means stay
/// `JSONDecoder`'s, and the tape only has to be right where it answers.
public final class JSONTape {
    public enum Kind: UInt8, Sendable { case null, bool, number, string, array, object }

    /// A value the tape will not judge; decode the document with `JSONDecoder` instead.
    public struct Unsure: Error {
        public init() {}
    }

    struct Node {
        var kind: Kind
        /// A string or key written with a backslash; a bool's value.
        var flag: Bool
        var start: Int
        var end: Int
        /// The index of the node after this value and everything in it.
        var next: Int
    }

    let bytes: [UInt8]
    private(set) var nodes: [Node] = []

    /// Reads `bytes`, or returns nil if they are not JSON the tape takes (see above).
    public init?(_ bytes: [UInt8]) {
        self.bytes = bytes
        nodes.reserveCapacity(bytes.count / 8)
        // Valid UTF-8 throughout, as `JSONDecoder` demands; the scan below looks at ASCII only.
        if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) == nil { return nil }
        var reader = Reader(bytes: bytes)
        guard (try? reader.value(into: &nodes, depth: 0)) != nil else { return nil }
        reader.skipSpace()
        guard reader.at == bytes.count else { return nil }
    }

    /// The document's top value.
    public var root: Value { Value(tape: self, index: 0) }

    /// One value of the document.
    public struct Value {
        let tape: JSONTape
        let index: Int

        private var node: Node { tape.nodes[index] }
        public var kind: Kind { node.kind }

        /// The member named `key` of an object; nil if it has none or this is not an object.
        /// - Throws: ``Unsure`` if the object names `key` twice or writes any key with escapes.
        public func member(_ key: StaticString) throws(Unsure) -> Value? {
            guard kind == .object else { return nil }
            var found: Int?
            var at = index + 1
            let end = node.next
            while at < end {
                let keyNode = tape.nodes[at]
                if keyNode.flag { throw Unsure() }
                if tape.equals(keyNode, key) {
                    if found != nil { throw Unsure() }
                    found = at + 1
                }
                at = tape.nodes[at + 1].next
            }
            return found.map { Value(tape: tape, index: $0) }
        }

        /// An array's elements; nil if this is not an array.
        public var elements: [Value]? {
            guard kind == .array else { return nil }
            var values: [Value] = []
            var at = index + 1
            while at < node.next {
                values.append(Value(tape: tape, index: at))
                at = tape.nodes[at].next
            }
            return values
        }

        /// A string's text; nil if this is not a string.
        public var string: String? {
            guard kind == .string else { return nil }
            return tape.text(of: node)
        }

        /// A `true` or `false`; nil for anything else.
        public var bool: Bool? { kind == .bool ? node.flag : nil }

        /// A number written as an integer (`-?[0-9]+`) that fits `T`; nil if this is not a number.
        /// - Throws: ``Unsure`` for a number with a fraction or an exponent, or one that does
        ///   not fit, which `JSONDecoder` judges by rules of its own.
        public func integer<T: FixedWidthInteger>(_: T.Type = T.self) throws(Unsure) -> T? {
            guard kind == .number else { return nil }
            let digits = tape.bytes[node.start..<node.end]
            guard !digits.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }),
                let value = T(String(decoding: digits, as: UTF8.self))
            else { throw Unsure() }
            return value
        }
    }

    private func equals(_ node: Node, _ key: StaticString) -> Bool {
        guard node.end - node.start == key.utf8CodeUnitCount else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            memcmp(buffer.baseAddress! + node.start, key.utf8Start, key.utf8CodeUnitCount) == 0
        }
    }

    private func text(of node: Node) -> String {
        let raw = bytes[node.start..<node.end]
        guard node.flag else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var at = raw.startIndex
        while at < raw.endIndex {
            let byte = raw[at]
            at += 1
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                continue
            }
            let escape = raw[at]
            at += 1
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                // The reader let through only scalars outside the surrogates.
                let scalar = Unicode.Scalar(Reader.hex4(raw, at)!)!
                out.append(contentsOf: UTF8.encode(scalar)!)
                at += 4
            default: out.append(escape)  // " \ /
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
