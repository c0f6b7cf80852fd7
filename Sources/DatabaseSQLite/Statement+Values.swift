import Database
import Foundation
import GRDB
import GRDBSQLite
import SettlementWriter

extension Statement {
    /// Binds `values` through SQLite's own calls, checked for storability by the caller.
    ///
    /// GRDB's `StatementArguments` takes each value as an existential, maps it through a
    /// witness and checks the whole list again when it binds: together 9 % of the fulfiller's
    /// samples (BENCHMARKS.md, issue 29). GRDB is first told the statement is bound, with no
    /// arguments of its own, so that running it (`execute()`, `Row.fetchCursor`) keeps these.
    /// A statement whose run failed is never reused: GRDB drops it from its cache.
    func bind(_ values: [SQLValue]) throws {
        let handle = sqliteStatement
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "wrong number of statement arguments: \(values.count) given, \(expected) expected", sql: sql)
        }
        setUncheckedArguments(StatementArguments())
        for (offset, value) in values.enumerated() {
            let code = Self.bind(value, to: handle, at: CInt(offset + 1))
            guard code == SQLITE_OK else {
                sqlite3_clear_bindings(handle)
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: "argument \(offset + 1): \(String(cString: sqlite3_errstr(code)))", sql: sql)
            }
        }
    }

    /// SQLite copies what it is given (`SQLITE_TRANSIENT`): the bindings outlive `value`.
    private static func bind(_ value: SQLValue, to handle: SQLiteStatement, at index: CInt) -> CInt {
        switch value {
        case .null: return sqlite3_bind_null(handle, index)
        case .integer(let number): return sqlite3_bind_int64(handle, index, number)
        case .real(let number): return sqlite3_bind_double(handle, index, number)
        case .bool(let flag): return sqlite3_bind_int64(handle, index, flag ? 1 : 0)
        // GRDB's text format ("yyyy-MM-dd HH:mm:ss.SSS", UTC), as the records store dates.
        case .date(let date): return bindText(StoredDate.stored(date), to: handle, at: index)
        case .text(let text): return bindText(text, to: handle, at: index)
        case .blob(let bytes):
            // An empty buffer may have no address, which SQLite would bind as NULL.
            guard !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
            guard bytes.count <= Int(CInt.max) else { return SQLITE_TOOBIG }
            return bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, CInt($0.count), transient) }
        }
    }

    private static func bindText(_ text: String, to handle: SQLiteStatement, at index: CInt) -> CInt {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count <= Int(CInt.max) else { return SQLITE_TOOBIG }
            // An empty string may have no address, which SQLite would bind as NULL.
            guard let start = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, transient)
            }
            return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, CInt(bytes.count), transient)
            }
        }
    }
}

/// SQLite's `SQLITE_TRANSIENT`, which the C macro spells as a cast Swift does not import.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension Statement {
    /// The row the statement stands on, read through SQLite's own calls: GRDB's `Row` makes a
    /// `DatabaseValue` of each column first (a C string measured again, a blob copied twice).
    /// `names` are the statement's column names, read once per run.
    func row(names: [String]) -> SQLRow {
        let handle = sqliteStatement
        var columns: [String: SQLValue] = Dictionary(minimumCapacity: names.count)
        for (index, name) in zip(CInt(0)..., names) {
            columns[name] =
                switch sqlite3_column_type(handle, index) {
                case SQLITE_INTEGER: .integer(sqlite3_column_int64(handle, index))
                case SQLITE_FLOAT: .real(sqlite3_column_double(handle, index))
                case SQLITE_TEXT:
                    .text(
                        String(
                            decoding: UnsafeBufferPointer(
                                start: sqlite3_column_text(handle, index),
                                count: Int(sqlite3_column_bytes(handle, index))),
                            as: UTF8.self))
                case SQLITE_BLOB:
                    .blob(
                        [UInt8](
                            UnsafeRawBufferPointer(
                                start: sqlite3_column_blob(handle, index),
                                count: Int(sqlite3_column_bytes(handle, index)))))
                default: .null
                }
        }
        return SQLRow(columns)
    }
}
