import Database
import Foundation
import GRDB
import PipelineCore

/// A date as GRDB writes it to SQLite (`yyyy-MM-dd HH:mm:ss.SSS`, UTC, to the nearest
/// millisecond: its formatter rounds), by arithmetic: GRDB's DateFormatter was a quarter
/// of the cost of binding a statement's arguments.
enum StoredDate {
    /// The text, or nil for GRDB to write: outside the years 1600-9999, or so close to a
    /// half-millisecond that which way its formatter rounds is not certain.
    static func text(_ date: Date) -> String? {
        let milliseconds = date.timeIntervalSince1970 * 1000
        guard milliseconds.magnitude < 1e15 else { return nil }
        let fraction = milliseconds - milliseconds.rounded(.down)
        guard abs(fraction - 0.5) > 1e-3 else { return nil }
        return CivilTime(milliseconds: Int64(milliseconds.rounded()))?.sqlite
    }

    /// The text a date is stored as: ``text(_:)``, or GRDB's where that is not certain.
    static func stored(_ date: Date) -> String {
        text(date) ?? grdbText(date)
    }

    /// GRDB's own text for `date`, which ``text(_:)`` stands in for (and the tests compare).
    static func grdbText(_ date: Date) -> String {
        String.fromDatabaseValue(date.databaseValue) ?? ""
    }
}
