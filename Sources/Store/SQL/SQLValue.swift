import Foundation

/// A value bound to a statement or read from a row, the same for SQLite and PostgreSQL.
///
/// Each backend maps it to its own storage: a date is SQLite's text in GRDB's format, and
/// PostgreSQL's `timestamptz`; an integer is 64 bits on both, so money stays exact.
public enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case date(Date)
    case bool(Bool)
}

/// A Swift value a statement can take as an argument.
public protocol SQLConvertible: Sendable {
    var sqlValue: SQLValue { get }
}

extension String: SQLConvertible {
    public var sqlValue: SQLValue { .text(self) }
}

extension Int: SQLConvertible {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int64: SQLConvertible {
    public var sqlValue: SQLValue { .integer(self) }
}

extension Double: SQLConvertible {
    public var sqlValue: SQLValue { .real(self) }
}

extension Bool: SQLConvertible {
    public var sqlValue: SQLValue { .bool(self) }
}

extension Date: SQLConvertible {
    public var sqlValue: SQLValue { .date(self) }
}

extension Data: SQLConvertible {
    public var sqlValue: SQLValue { .blob([UInt8](self)) }
}

extension SQLValue: SQLConvertible {
    public var sqlValue: SQLValue { self }
}

/// The arguments of one statement, in the order of its `?` placeholders.
public typealias SQLArguments = [(any SQLConvertible)?]

extension Array where Element == (any SQLConvertible)? {
    var sqlValues: [SQLValue] { map { $0?.sqlValue ?? .null } }
}
