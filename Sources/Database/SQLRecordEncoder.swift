import Foundation

/// Encodes an `Encodable` record into its columns, in coding-key order: what
/// ``SQLSession/insert(_:into:)`` and ``SQLSession/update(_:in:key:)`` write.
final class SQLRecordEncoder: Encoder {
    var columns: [(name: String, value: SQLValue)] = []
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func columns(of record: some Encodable) throws -> [(name: String, value: SQLValue)] {
        let encoder = SQLRecordEncoder()
        try record.encode(to: encoder)
        return encoder.columns
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Columns<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("a record encodes as keyed columns only") }
    func singleValueContainer() -> any SingleValueEncodingContainer {
        fatalError("a record encodes as keyed columns only")
    }

    struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: SQLRecordEncoder
        var codingPath: [any CodingKey] { [] }

        private func put(_ value: SQLValue, _ key: Key) { encoder.columns.append((key.stringValue, value)) }

        mutating func encodeNil(forKey key: Key) throws { put(.null, key) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if let convertible = value as? any SQLConvertible { return put(convertible.sqlValue, key) }
            // A raw-value enum (a status, a kind) is stored as its raw value.
            if let raw = value as? any RawRepresentable, let rawValue = raw.rawValue as? any SQLConvertible {
                return put(rawValue.sqlValue, key)
            }
            throw SQLError.decoding("column \(key.stringValue) cannot store a \(T.self)")
        }

        // Every optional is written, nil as NULL: the protocol's defaults skip a nil, and an
        // update would then leave the old value in place.
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            guard let value else { return put(.null, key) }
            try encode(value, forKey: key)
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws { put(value.sqlValue, key) }
        mutating func encode(_ value: String, forKey key: Key) throws { put(value.sqlValue, key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { put(value.sqlValue, key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { put(value.sqlValue, key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { put(value.sqlValue, key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { put(.real(Double(value)), key) }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            fatalError("column \(key.stringValue) cannot hold a nested record")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            fatalError("column \(key.stringValue) cannot hold a list")
        }
        mutating func superEncoder() -> any Encoder { encoder }
        mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }
}

extension SQLSession {
    /// Inserts a record as a row of `table`, one column per coding key.
    public func insert(_ record: some Encodable, into table: String) async throws {
        let columns = try SQLRecordEncoder.columns(of: record)
        let names = columns.map(\.name).joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        try await execute("INSERT INTO \(table) (\(names)) VALUES (\(marks))", columns.map(\.value))
    }

    /// Updates the row of `table` whose `key` column holds the record's: every other column.
    public func update(_ record: some Encodable, in table: String, key: String = "id") async throws {
        let columns = try SQLRecordEncoder.columns(of: record)
        guard let keyValue = columns.first(where: { $0.name == key })?.value else {
            throw SQLError.decoding("a \(type(of: record)) has no column \(key)")
        }
        let others = columns.filter { $0.name != key }
        let assignments = others.map { "\($0.name) = ?" }.joined(separator: ", ")
        try await execute("UPDATE \(table) SET \(assignments) WHERE \(key) = ?", others.map(\.value) + [keyValue])
    }
}
