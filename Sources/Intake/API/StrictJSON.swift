import Foundation

/// A strict RFC 8259 syntax check. `JSONSerialization` accepts more than JSON (trailing
/// commas, in some versions) and keeps the last of duplicate keys silently: a body whose two
/// `account_id`s a proxy and the intake read differently is refused here, before
/// `JSONSerialization` reads it, or in its place (``read(_:)`` builds the values itself).
/// Also bounds nesting, so no body can exhaust the stack of a recursive parser, and finds
/// the strings holding a control character (`\u0000` truncates a string in every C API it
/// reaches, SQLite's included), for the caller to refuse naming the member.
///
/// One scan, no allocation but the keys of the object being read and the current path; or,
/// with ``read(_:)``, the body's values built in the same scan. Pure.
struct StrictJSON {
    static let maximumDepth = 32

    private let bytes: [UInt8]
    private var index = 0
    /// Whether the values are being built: from the start with ``read(_:)``, until a value
    /// that is not built (a number, a boolean, text that is not UTF-8) is met.
    private var building = false
    /// The members from the root to the value being read: `google_play`, `product_id`, `[2]`.
    private var path: [String] = []
    /// The strings holding a control character, and the keys holding one, in body order.
    private var controlCharacterPaths: [[String]] = []

    /// - Returns: The path of each string or key that holds a control character (any but
    ///   the line breaks CR and LF, which base64 may carry), in body order, e.g.
    ///   `[["google_play", "product_id"]]`; empty when there is none.
    /// - Throws: ``APIError`` 400 `invalid_json` (naming what is wrong) or `duplicate_key`.
    @discardableResult
    static func check(_ json: some Collection<UInt8>) throws(APIError) -> [[String]] {
        try scan(json, building: false).paths
    }

    /// ``check(_:)``, and the body as `JSONSerialization` reads it, built in the same scan:
    /// a JSON object whose values are strings, objects, arrays and nulls, as the intake's
    /// bodies are. Nil for any other body (a number or a boolean in it, text that is not
    /// UTF-8, a body that is not an object), for the caller to read with `JSONSerialization`,
    /// whose numbers come in five types and whose refusals are its own.
    static func read(_ json: some Collection<UInt8>) throws(APIError) -> (object: [String: Any]?, paths: [[String]]) {
        let (value, paths) = try scan(json, building: true)
        return (value as? [String: Any], paths)
    }

    /// The whole body: its value if `building` and nothing stopped the building, and its
    /// control characters' paths.
    private static func scan(_ json: some Collection<UInt8>, building: Bool) throws(APIError) -> (
        Any?, paths: [[String]]
    ) {
        var scanner = StrictJSON(bytes: Array(json))
        scanner.building = building
        scanner.skipWhitespace()
        let value = try scanner.value(depth: 0)
        scanner.skipWhitespace()
        guard scanner.index == scanner.bytes.count else { throw invalid("unexpected data after the JSON value") }
        return (scanner.building ? value : nil, scanner.controlCharacterPaths)
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private static func invalid(_ problem: String) -> APIError {
        APIError.invalid("invalid_json", "the body is not valid JSON: \(problem)")
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(APIError) {
        guard current == byte else { throw Self.invalid("expected \(what)") }
        index += 1
    }

    /// The value that starts here; built while ``building``, else nil.
    private mutating func value(depth: Int) throws(APIError) -> Any? {
        guard depth < Self.maximumDepth else { throw Self.invalid("nested deeper than \(Self.maximumDepth) levels") }
        switch current {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""):
            let (text, plain) = try string()
            if !plain, Self.hasControlCharacter(text, allowingLineBreaks: true) { noteControlCharacter(at: path) }
            return building ? text : nil
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"):
            try literal("null")
            return building ? NSNull() : nil
        case .some(let byte) where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte): try number()
        default: throw Self.invalid("expected a value")
        }
        // A number or a boolean: `JSONSerialization`'s to read.
        building = false
        return nil
    }

    private mutating func object(depth: Int) throws(APIError) -> [String: Any]? {
        index += 1
        skipWhitespace()
        var members: [String: Any] = [:]
        if current == UInt8(ascii: "}") {
            index += 1
            return building ? members : nil
        }
        var keys: Set<String> = []
        while true {
            guard current == UInt8(ascii: "\"") else {
                throw Self.invalid(keys.isEmpty ? "expected a key" : "trailing comma in an object")
            }
            let (key, plainKey) = try string()
            guard keys.insert(key).inserted else {
                throw APIError.invalid(
                    "duplicate_key", "the key \(key.prefix(64)) appears twice in one object",
                    field: String(key.prefix(64)))
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after a key")
            skipWhitespace()
            if !plainKey, Self.hasControlCharacter(key, allowingLineBreaks: false) {
                noteControlCharacter(at: path + [key])
            }
            path.append(key)
            let member = try value(depth: depth)
            if building { members[key] = member }
            path.removeLast()
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                continue
            }
            try expect(UInt8(ascii: "}"), "',' or '}'")
            return building ? members : nil
        }
    }

    private mutating func array(depth: Int) throws(APIError) -> [Any]? {
        index += 1
        skipWhitespace()
        var elements: [Any] = []
        if current == UInt8(ascii: "]") {
            index += 1
            return building ? elements : nil
        }
        var element = 0
        while true {
            if current == UInt8(ascii: "]") { throw Self.invalid("trailing comma in an array") }
            path.append("[\(element)]")
            let value = try value(depth: depth)
            if building, let value { elements.append(value) }
            path.removeLast()
            element += 1
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                continue
            }
            try expect(UInt8(ascii: "]"), "',' or ']'")
            return building ? elements : nil
        }
    }

    private mutating func noteControlCharacter(at path: [String]) {
        controlCharacterPaths.append(path)
    }

    /// Whether `text` holds a C0 or C1 control character or DEL (Unicode's `Cc`: U+0000-001F,
    /// U+007F-009F), read from its UTF-8 bytes: a receipt is a megabyte of them.
    static func hasControlCharacter(_ text: String, allowingLineBreaks: Bool) -> Bool {
        // A native string's bytes in place: iterating `utf8` cost a receipt's intake 2 %.
        text.utf8.withContiguousStorageIfAvailable { hasControlCharacter($0, allowingLineBreaks: allowingLineBreaks) }
            ?? hasControlCharacter(text.utf8, allowingLineBreaks: allowingLineBreaks)
    }

    private static func hasControlCharacter(_ utf8: some Sequence<UInt8>, allowingLineBreaks: Bool) -> Bool {
        var previous: UInt8 = 0
        for byte in utf8 {
            switch byte {
            case 0x0A where allowingLineBreaks, 0x0D where allowingLineBreaks: break
            case 0x00...0x1F, 0x7F: return true
            case 0x80...0x9F where previous == 0xC2: return true
            default: break
            }
            previous = byte
        }
        return false
    }

    private mutating func literal(_ word: String) throws(APIError) {
        let expected = word.utf8
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected)
        else { throw Self.invalid("expected a value") }
        index += expected.count
    }

    private mutating func number() throws(APIError) {
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (0x30...0x39).contains(first) else { throw Self.invalid("malformed number") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard try digits() else { throw Self.invalid("malformed number") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard try digits() else { throw Self.invalid("malformed number") }
        }
    }

    private mutating func skipDigits() {
        while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
    }

    private mutating func digits() throws(APIError) -> Bool {
        let start = index
        skipDigits()
        return index > start
    }

    /// A string, decoded, so that `"a"` and `"\u0061"` are the same key.
    /// The string that starts here, and whether it is plain: no escape, no DEL, no C1 control
    /// (whose UTF-8 starts 0xC2), so that it holds no control character at all (a raw C0 one
    /// is refused here).
    private mutating func string() throws(APIError) -> (String, plain: Bool) {
        index += 1
        // Most strings (a receipt's kilobytes of base64 among them) are plain: found to their
        // end in one pass and copied once, not appended byte by byte, nor scanned again.
        let start = index
        while index < bytes.count, bytes[index] >= 0x20, bytes[index] != UInt8(ascii: "\""),
            bytes[index] != UInt8(ascii: "\\"), bytes[index] != 0x7F, bytes[index] != 0xC2
        {
            index += 1
        }
        if current == UInt8(ascii: "\"") {
            index += 1
            return (text(bytes[start..<index - 1]), true)
        }
        var utf8 = Array(bytes[start..<index])
        while true {
            guard let byte = current else { throw Self.invalid("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return (text(utf8[...]), false)
            case UInt8(ascii: "\\"): utf8 += String(try escape()).utf8
            case 0x00...0x1F: throw Self.invalid("control character in a string")
            default: utf8.append(byte)
            }
        }
    }

    /// `utf8` as text; while building, text that is not UTF-8 stops the building
    /// (`JSONSerialization` refuses it; the check reads it with replacement characters).
    private mutating func text(_ utf8: ArraySlice<UInt8>) -> String {
        if building {
            if let text = String(validating: utf8, as: UTF8.self) { return text }
            building = false
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    private mutating func escape() throws(APIError) -> Unicode.Scalar {
        guard let byte = current else { throw Self.invalid("unterminated string") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            var unit = try hex4()
            if (0xD800...0xDBFF).contains(unit), bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            {
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw Self.invalid("unpaired surrogate") }
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(unit) else { throw Self.invalid("unpaired surrogate") }
            return scalar
        default:
            throw Self.invalid("unknown escape in a string")
        }
    }

    private mutating func hex4() throws(APIError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw Self.invalid("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw Self.invalid("malformed \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
