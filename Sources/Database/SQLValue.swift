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
    public var sqlValues: [SQLValue] { map { $0?.sqlValue ?? .null } }

    /// The values, each checked to be one the read path accepts back (``SQLValue/checkStorable()``).
    public func storableValues() throws(SQLError) -> [SQLValue] {
        let values = sqlValues
        for value in values { try value.checkStorable() }
        return values
    }
}

extension SQLValue {
    /// The dates the pipeline stores: 1970-01-01 to 9999-12-31 UTC. SQLite keeps a date as
    /// text with a four-digit year, which a year past 9999 breaks; nothing the stores or the
    /// stores' clients mean is older than 1970.
    public static let storableDates = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 253_402_300_799.999)

    /// Refuses a value the read path would not give back as it went in: a date outside
    /// ``storableDates``, text holding NUL (PostgreSQL refuses it, C strings end at it).
    /// Checked where values are bound, so that no write path can store an unreadable row.
    public func checkStorable() throws(SQLError) {
        switch self {
        case .date(let date) where !Self.storableDates.contains(date):
            throw .unstorable("the date \(date.timeIntervalSince1970) s since 1970 is outside years 1970-9999")
        case .text(let text) where Self.holdsNUL(text):
            throw .unstorable("a text holds NUL: \(text.prefix { $0 != "\0" }.prefix(40))...")
        default: return
        }
    }

    /// memchr over the bytes: a byte at a time through the UTF-8 view showed in the
    /// fulfiller's profile, whose rows carry whole webhook bodies and receipts.
    private static func holdsNUL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, 0, bytes.count) != nil
        }
    }
}
