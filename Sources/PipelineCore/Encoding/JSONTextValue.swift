import Foundation

/// A value ``JSONText`` writes: the scalars as `JSONEncoder` writes them through
/// ``WireCoding``, a missing optional as `null`, an array element by element, and whatever
/// shape conforms by writing its own object.
public protocol JSONTextValue {
    func write(into json: inout JSONText)
}

extension JSONTextValue {
    /// The value's JSON, written into a buffer that starts with room for `capacity` bytes.
    public func jsonBytes(capacity: Int = 256) -> [UInt8] {
        var json = JSONText(capacity: capacity)
        write(into: &json)
        return json.bytes
    }
}

extension JSONText {
    /// `"key":value`, `null` for a missing optional (as `encode(_:forKey:)` writes it).
    @inlinable
    public mutating func member(_ name: StaticString, _ value: some JSONTextValue) {
        key(name)
        value.write(into: &self)
    }

    /// `"key":value`, or nothing when `value` is nil (as `encodeIfPresent`, and so the
    /// synthesized `Encodable` of an optional property, leaves it out).
    @inlinable
    public mutating func member(_ name: StaticString, ifPresent value: (some JSONTextValue)?) {
        if let value { member(name, value) }
    }
}

extension String: JSONTextValue {
    public func write(into json: inout JSONText) { json.string(self) }
}

extension Int: JSONTextValue {
    public func write(into json: inout JSONText) { json.int(self) }
}

extension Bool: JSONTextValue {
    public func write(into json: inout JSONText) { json.bool(self) }
}

extension Date: JSONTextValue {
    public func write(into json: inout JSONText) { json.date(self) }
}

extension Optional: JSONTextValue where Wrapped: JSONTextValue {
    public func write(into json: inout JSONText) {
        if let value = self { value.write(into: &json) } else { json.null() }
    }
}

extension Array: JSONTextValue where Element: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.array { json in
            for element in self { element.write(into: &json) }
        }
    }
}
