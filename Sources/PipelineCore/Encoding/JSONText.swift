import Foundation

/// JSON written straight into bytes, for the bodies a hot path writes with a shape known in
/// advance: the webhooks the fulfiller writes inside its transaction, where Foundation's
/// `JSONEncoder` (its containers, boxes and a fresh encoder per body) was a fifth of the
/// fulfiller's time in the write lock.
///
/// It writes what ``WireCoding/encoder()`` writes, byte for byte: no spaces, slashes not
/// escaped, control characters escaped as Foundation escapes them, dates as ``Timestamp``.
/// The caller names an object's keys in ascending order (`sortedKeys`), as the tests of each
/// shape check against `JSONEncoder`; a shape writes its members with
/// ``member(_:_:)`` and ``member(_:ifPresent:)`` (``JSONTextValue``).
public struct JSONText: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// A value was just written: what comes next in the same object or array needs a comma.
    private var afterValue = false

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Objects and arrays

    public mutating func object(_ members: (inout JSONText) throws -> Void) rethrows {
        open(UInt8(ascii: "{"))
        try members(&self)
        close(UInt8(ascii: "}"))
    }

    public mutating func array(_ elements: (inout JSONText) throws -> Void) rethrows {
        open(UInt8(ascii: "["))
        try elements(&self)
        close(UInt8(ascii: "]"))
    }

    /// An object's key: the value written next is its value. Keys are written as given, so
    /// they must need no escaping (the shapes' keys are snake_case ASCII).
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        afterValue = false
    }

    /// A key that is data (a balance's currency): escaped like any string.
    public mutating func key(_ name: String) {
        separate()
        escaped(name)
        bytes.append(UInt8(ascii: ":"))
        afterValue = false
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        separate()
        escaped(value)
        afterValue = true
    }

    public mutating func int(_ value: Int) {
        separate()
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
        } else {
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            // The magnitude's digits, least significant first, then reversed in place:
            // `Int.min` has no positive twin, `magnitude` does.
            var rest = value.magnitude
            let start = bytes.count
            while rest > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
                rest /= 10
            }
            bytes[start...].reverse()
        }
        afterValue = true
    }

    public mutating func bool(_ value: Bool) {
        literal(value ? "true" : "false")
    }

    public mutating func null() {
        literal("null")
    }

    /// As ``WireCoding`` writes a date: ``Timestamp/format(_:)`` as a string.
    public mutating func date(_ value: Date) {
        string(Timestamp.format(value))
    }

    // MARK: Writing

    private mutating func separate() {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func literal(_ text: StaticString) {
        separate()
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        afterValue = true
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        afterValue = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        afterValue = true
    }

    /// Quoted, with what JSON forbids raw escaped as Foundation does: `\"`, `\\`, the short
    /// forms `\b \t \n \f \r`, and other control characters as `\u00xx`. The rest, `/` and
    /// all of Unicode included, is copied as UTF-8.
    private mutating func escaped(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var copied = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[copied..<index]))
                copied = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22, 0x5C: bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    hex.withUTF8Buffer { bytes.append(contentsOf: [$0[Int(byte >> 4)], $0[Int(byte & 0xF)]]) }
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[copied...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
