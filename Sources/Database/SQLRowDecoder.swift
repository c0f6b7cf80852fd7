import Foundation

/// Decodes a `Decodable` record from a row: each coding key is a column. Records keep
/// their `Codable` conformance and need no backend of their own.
struct SQLRowDecoder: Decoder {
    let row: SQLRow
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns<Key>(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw SQLError.decoding("a row decodes as a keyed record only")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw SQLError.decoding("a row decodes as a keyed record only")
    }

    struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: SQLRow
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { row.columns.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { row.columns[key.stringValue] != nil }

        func decodeNil(forKey key: Key) throws -> Bool { row.columns[key.stringValue].map { $0 == .null } ?? true }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try row.get(key.stringValue) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try row.get(key.stringValue) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try row.get(key.stringValue) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try row.get(key.stringValue) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try row.get(key.stringValue) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try narrow(key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try narrow(key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try narrow(key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try narrow(key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try narrow(key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try narrow(key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try narrow(key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try narrow(key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try narrow(key) }

        private func narrow<T: BinaryInteger>(_ key: Key) throws -> T {
            guard let wide = T(exactly: try row.get(key.stringValue, as: Int64.self)) else {
                throw SQLError.decoding("column \(key.stringValue) does not fit \(T.self)")
            }
            return wide
        }

        private func narrow(_ key: Key) throws -> Float { Float(try row.get(key.stringValue, as: Double.self)) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if let decodable = T.self as? any SQLDecodable.Type {
                return try decodeColumn(decodable, key) as! T
            }
            // A String- or Int-backed enum, say: decoded from the column's single value.
            return try T(from: Value(value: row.columns[key.stringValue] ?? .null, column: key.stringValue))
        }

        private func decodeColumn<D: SQLDecodable>(_ type: D.Type, _ key: Key) throws -> D {
            try row.get(key.stringValue, as: D.self)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            throw SQLError.decoding("column \(key.stringValue) cannot hold a nested record")
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw SQLError.decoding("column \(key.stringValue) cannot hold a list")
        }

        func superDecoder() throws -> any Decoder { SQLRowDecoder(row: row) }
        func superDecoder(forKey key: Key) throws -> any Decoder { SQLRowDecoder(row: row) }
    }

    /// One column's value, for types that decode from a single value (raw-value enums).
    struct Value: Decoder, SingleValueDecodingContainer {
        let value: SQLValue
        let column: String
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            throw SQLError.decoding("column \(column) cannot hold a nested record")
        }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw SQLError.decoding("column \(column) cannot hold a list")
        }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

        func decodeNil() -> Bool { value == .null }
        func decode(_ type: Bool.Type) throws -> Bool { try get() }
        func decode(_ type: String.Type) throws -> String { try get() }
        func decode(_ type: Double.Type) throws -> Double { try get() }
        func decode(_ type: Int.Type) throws -> Int { try get() }
        func decode(_ type: Int64.Type) throws -> Int64 { try get() }
        func decode(_ type: Float.Type) throws -> Float { try narrow() }
        func decode(_ type: Int8.Type) throws -> Int8 { try narrow() }
        func decode(_ type: Int16.Type) throws -> Int16 { try narrow() }
        func decode(_ type: Int32.Type) throws -> Int32 { try narrow() }
        func decode(_ type: UInt.Type) throws -> UInt { try narrow() }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try narrow() }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try narrow() }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try narrow() }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try narrow() }

        private func narrow<T: BinaryInteger>() throws -> T {
            guard let wide = T(exactly: try get() as Int64) else {
                throw SQLError.decoding("column \(column) does not fit \(T.self)")
            }
            return wide
        }

        private func narrow() throws -> Float { Float(try get() as Double) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            throw SQLError.decoding("column \(column) cannot hold a \(T.self)")
        }

        private func get<T: SQLDecodable>() throws -> T {
            guard let decoded = T.decode(value) else {
                throw SQLError.decoding("column \(column) holds \(value), not \(T.self)")
            }
            return decoded
        }
    }
}
