import Foundation

/// One row of a result: its columns by name, as the backend returned them.
public struct SQLRow: Sendable {
    public let columns: [String: SQLValue]

    public init(_ columns: [String: SQLValue]) {
        self.columns = columns
    }

    /// The value of `column`, decoded as `T`.
    /// - Throws: ``SQLError/decoding(_:)`` when the column is missing, or holds another type
    ///   (or NULL where `T` is not optional): a schema and a program that disagree.
    public func get<T: SQLDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let value = columns[column] else { throw SQLError.decoding("no column \(column)") }
        guard let decoded = T.decode(value) else {
            throw SQLError.decoding("column \(column) holds \(value.shown), not a \(T.self)")
        }
        return decoded
    }

    /// The row as a `Decodable` record whose coding keys are the column names.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try T(from: SQLRowDecoder(row: self))
    }
}

/// A Swift value a column can be read as.
public protocol SQLDecodable {
    /// The value, or nil when `value` is not one (NULL included, unless Self is optional).
    static func decode(_ value: SQLValue) -> Self?
}

extension String: SQLDecodable {
    public static func decode(_ value: SQLValue) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }
}

extension Int64: SQLDecodable {
    public static func decode(_ value: SQLValue) -> Int64? {
        switch value {
        case .integer(let number): number
        case .bool(let flag): flag ? 1 : 0
        default: nil
        }
    }
}

extension Int: SQLDecodable {
    public static func decode(_ value: SQLValue) -> Int? { Int64.decode(value).map { Int($0) } }
}

extension Double: SQLDecodable {
    public static func decode(_ value: SQLValue) -> Double? {
        switch value {
        case .real(let number): number
        case .integer(let number): Double(number)
        default: nil
        }
    }
}

extension Bool: SQLDecodable {
    public static func decode(_ value: SQLValue) -> Bool? {
        switch value {
        case .bool(let flag): flag
        case .integer(let number): number != 0
        default: nil
        }
    }
}

extension Date: SQLDecodable {
    public static func decode(_ value: SQLValue) -> Date? {
        switch value {
        case .date(let date): date
        case .text(let text): SQLDateText.parse(text)
        default: nil
        }
    }
}

extension Data: SQLDecodable {
    public static func decode(_ value: SQLValue) -> Data? {
        switch value {
        case .blob(let bytes): Data(bytes)
        case .text(let text): Data(text.utf8)
        default: nil
        }
    }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    public static func decode(_ value: SQLValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.decode(value).map { .some($0) }
    }
}

extension SQLValue {
    /// The value as an error message shows it: text quoted and cut short.
    var shown: String {
        switch self {
        case .null: "NULL"
        case .integer(let number): "\(number)"
        case .real(let number): "\(number)"
        case .text(let text): "'\(text.prefix(64))'"
        case .blob(let bytes): "\(bytes.count) bytes"
        case .date(let date): "\(date)"
        case .bool(let flag): "\(flag)"
        }
    }
}
