/// The elements of a JSON array as the bytes they were written in, without decoding them:
/// a pack's parts come out byte for byte as they went in (``MessagePack``). Only the
/// structure is read (strings and their escapes, brackets, braces and commas); whether each
/// element is valid JSON is left to whoever decodes it.
enum JSONArraySplitter {
    /// Nil when `bytes` is not one array (unbalanced, text after it, an empty element).
    static func elements(of bytes: [UInt8]) -> [[UInt8]]? {
        var index = bytes.startIndex
        skipWhitespace(bytes, &index)
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "[") else { return nil }
        index += 1
        var elements: [[UInt8]] = []
        var start = index
        var depth = 0
        var inString = false
        var escaped = false
        while index < bytes.endIndex {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: "}"): depth -= 1
                case UInt8(ascii: "]") where depth == 0:
                    let last = trimmed(bytes[start..<index])
                    if last.isEmpty {
                        // `[]` is an array of none; `[1,]` has an empty element.
                        guard elements.isEmpty else { return nil }
                    } else {
                        elements.append(last)
                    }
                    index += 1
                    skipWhitespace(bytes, &index)
                    return index == bytes.endIndex ? elements : nil
                case UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: ",") where depth == 0:
                    let element = trimmed(bytes[start..<index])
                    guard !element.isEmpty else { return nil }
                    elements.append(element)
                    start = index + 1
                default: break
                }
                if depth < 0 { return nil }
            }
            index += 1
        }
        return nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.endIndex, isWhitespace(bytes[index]) { index += 1 }
    }

    private static func trimmed(_ slice: ArraySlice<UInt8>) -> [UInt8] {
        var lower = slice.startIndex
        var upper = slice.endIndex
        while lower < upper, isWhitespace(slice[lower]) { lower += 1 }
        while upper > lower, isWhitespace(slice[upper - 1]) { upper -= 1 }
        return Array(slice[lower..<upper])
    }
}
