extension JSONTape {
    /// Reads RFC 8259 JSON byte by byte onto the tape. Any error is the document's refusal.
    struct Reader {
        struct Refused: Error {}

        let bytes: [UInt8]
        var at = 0

        /// Containers nested deeper go to `JSONDecoder`, which has limits of its own.
        static let maximumDepth = 64

        mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        mutating func value(into nodes: inout [Node], depth: Int) throws(Refused) {
            skipSpace()
            guard at < bytes.count else { throw Refused() }
            switch bytes[at] {
            case UInt8(ascii: "{"): try container(into: &nodes, depth: depth, kind: .object, close: UInt8(ascii: "}"))
            case UInt8(ascii: "["): try container(into: &nodes, depth: depth, kind: .array, close: UInt8(ascii: "]"))
            case UInt8(ascii: "\""): try string(into: &nodes)
            case UInt8(ascii: "t"): try literal("true", into: &nodes, kind: .bool, flag: true)
            case UInt8(ascii: "f"): try literal("false", into: &nodes, kind: .bool, flag: false)
            case UInt8(ascii: "n"): try literal("null", into: &nodes, kind: .null, flag: false)
            default: try number(into: &nodes)
            }
        }

        private mutating func container(
            into nodes: inout [Node], depth: Int, kind: Kind, close: UInt8
        ) throws(Refused) {
            guard depth < Self.maximumDepth else { throw Refused() }
            let index = nodes.count
            nodes.append(Node(kind: kind, flag: false, start: at, end: at, next: 0))
            at += 1
            skipSpace()
            if at < bytes.count, bytes[at] == close {
                at += 1
            } else {
                while true {
                    if kind == .object {
                        skipSpace()
                        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw Refused() }
                        try string(into: &nodes)
                        skipSpace()
                        guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw Refused() }
                        at += 1
                    }
                    try value(into: &nodes, depth: depth + 1)
                    skipSpace()
                    guard at < bytes.count else { throw Refused() }
                    let separator = bytes[at]
                    at += 1
                    if separator == close { break }
                    guard separator == UInt8(ascii: ",") else { throw Refused() }
                }
            }
            nodes[index].end = at
            nodes[index].next = nodes.count
        }

        /// A string's node spans its text between the quotes, escapes unread.
        private mutating func string(into nodes: inout [Node]) throws(Refused) {
            at += 1
            let start = at
            var escaped = false
            while true {
                guard at < bytes.count else { throw Refused() }
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") { break }
                guard byte >= 0x20 else { throw Refused() }
                at += 1
                guard byte == UInt8(ascii: "\\") else { continue }
                escaped = true
                guard at < bytes.count else { throw Refused() }
                switch bytes[at] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    at += 1
                case UInt8(ascii: "u"):
                    guard let scalar = Self.hex4(bytes[...], at + 1), !(0xD800...0xDFFF).contains(scalar) else {
                        throw Refused()
                    }
                    at += 5
                default: throw Refused()
                }
            }
            nodes.append(Node(kind: .string, flag: escaped, start: start, end: at, next: nodes.count + 1))
            at += 1
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
        private mutating func number(into nodes: inout [Node]) throws(Refused) {
            let start = at
            if peek(UInt8(ascii: "-")) { at += 1 }
            if peek(UInt8(ascii: "0")) {
                at += 1
            } else {
                guard digits() > 0 else { throw Refused() }
            }
            if peek(UInt8(ascii: ".")) {
                at += 1
                guard digits() > 0 else { throw Refused() }
            }
            if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
                at += 1
                if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { at += 1 }
                guard digits() > 0 else { throw Refused() }
            }
            nodes.append(Node(kind: .number, flag: false, start: start, end: at, next: nodes.count + 1))
        }

        private mutating func literal(
            _ word: StaticString, into nodes: inout [Node], kind: Kind, flag: Bool
        ) throws(Refused) {
            let count = word.utf8CodeUnitCount
            guard at + count <= bytes.count else { throw Refused() }
            for offset in 0..<count where bytes[at + offset] != word.utf8Start[offset] { throw Refused() }
            nodes.append(Node(kind: kind, flag: flag, start: at, end: at + count, next: nodes.count + 1))
            at += count
        }

        private func peek(_ byte: UInt8) -> Bool { at < bytes.count && bytes[at] == byte }

        private mutating func digits() -> Int {
            let start = at
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            return at - start
        }

        /// The four hex digits at `at`, as a number.
        static func hex4(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt32? {
            guard at + 4 <= bytes.endIndex else { return nil }
            var value: UInt32 = 0
            for byte in bytes[at..<at + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
    }
}
