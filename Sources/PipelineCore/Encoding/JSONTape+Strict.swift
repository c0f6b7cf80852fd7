import Foundation

/// What a synthesized `Decodable` reads with ``WireCoding/decoder()``, member by member, from a
/// tape: a required member absent, null or of another type, or an optional one of another type,
/// is where `JSONDecoder` throws, and so ``JSONTape/Unsure``: the caller decodes again with
/// `JSONDecoder`, which throws the error it always threw.
extension JSONTape.Value {
    /// `decode(String.self, forKey:)`
    public func string(_ key: StaticString) throws(JSONTape.Unsure) -> String {
        guard let text = try member(key)?.string else { throw JSONTape.Unsure() }
        return text
    }

    /// `decodeIfPresent(String.self, forKey:)`
    public func optionalString(_ key: StaticString) throws(JSONTape.Unsure) -> String? {
        guard let value = try present(key) else { return nil }
        guard let text = value.string else { throw JSONTape.Unsure() }
        return text
    }

    /// `decode(Int.self, forKey:)`
    public func int(_ key: StaticString) throws(JSONTape.Unsure) -> Int {
        guard let number = try member(key)?.integer(Int.self) else { throw JSONTape.Unsure() }
        return number
    }

    /// `decodeIfPresent(Int.self, forKey:)`
    public func optionalInt(_ key: StaticString) throws(JSONTape.Unsure) -> Int? {
        guard let value = try present(key) else { return nil }
        guard let number = try value.integer(Int.self) else { throw JSONTape.Unsure() }
        return number
    }

    /// `decodeIfPresent(Bool.self, forKey:)`
    public func optionalBool(_ key: StaticString) throws(JSONTape.Unsure) -> Bool? {
        guard let value = try present(key) else { return nil }
        guard let flag = value.bool else { throw JSONTape.Unsure() }
        return flag
    }

    /// `decode(Date.self, forKey:)`, a date as ``WireCoding`` writes it (``Timestamp``).
    public func date(_ key: StaticString) throws(JSONTape.Unsure) -> Date {
        guard let date = try member(key)?.string.flatMap(Timestamp.parse) else { throw JSONTape.Unsure() }
        return date
    }

    /// `decodeIfPresent(Date.self, forKey:)`
    public func optionalDate(_ key: StaticString) throws(JSONTape.Unsure) -> Date? {
        guard let value = try present(key) else { return nil }
        guard let date = value.string.flatMap(Timestamp.parse) else { throw JSONTape.Unsure() }
        return date
    }

    /// `decodeIfPresent(T.self, forKey:)` of an object `read` decodes.
    public func optionalObject<T>(
        _ key: StaticString, _ read: (JSONTape.Value) throws(JSONTape.Unsure) -> T
    ) throws(JSONTape.Unsure) -> T? {
        guard let value = try present(key) else { return nil }
        guard value.kind == .object else { throw JSONTape.Unsure() }
        return try read(value)
    }

    /// `decode([T].self, forKey:)` of objects `read` decodes.
    public func array<T>(
        _ key: StaticString, _ read: (JSONTape.Value) throws(JSONTape.Unsure) -> T
    ) throws(JSONTape.Unsure) -> [T] {
        guard let elements = try member(key)?.elements else { throw JSONTape.Unsure() }
        var values: [T] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            guard element.kind == .object else { throw JSONTape.Unsure() }
            values.append(try read(element))
        }
        return values
    }

    /// The member named `key` unless it is absent or null, as `decodeIfPresent` sees it.
    private func present(_ key: StaticString) throws(JSONTape.Unsure) -> JSONTape.Value? {
        guard let value = try member(key), value.kind != .null else { return nil }
        return value
    }
}
