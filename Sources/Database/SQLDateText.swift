import Foundation

/// Reads the dates SQLite stores as text: `YYYY-MM-DD HH:MM:SS.SSS` in UTC (GRDB's format,
/// which the SQLite backend writes), and the shorter forms SQLite's own date functions
/// write (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM`, `YYYY-MM-DD HH:MM:SS`), with a space or `T`
/// between date and time and an optional `Z`.
///
/// By hand rather than with a formatter: a batch of verdicts reads hundreds of dates, and
/// Foundation's formatters cost microseconds each.
public enum SQLDateText {
    public static func parse(_ text: String) -> Date? {
        var utf8 = Array(text.utf8)
        if utf8.last == UInt8(ascii: "Z") { utf8.removeLast() }
        guard utf8.count == 10 || utf8.count >= 16, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"),
            let year = number(utf8, 0, 4), let month = number(utf8, 5, 2), let day = number(utf8, 8, 2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = Double(daysSinceEpoch(year: year, month: month, day: day)) * 86_400
        guard utf8.count > 10 else { return Date(timeIntervalSince1970: seconds) }
        guard utf8[10] == UInt8(ascii: " ") || utf8[10] == UInt8(ascii: "T"), utf8[13] == UInt8(ascii: ":"),
            let hour = number(utf8, 11, 2), let minute = number(utf8, 14, 2), hour < 24, minute < 60
        else { return nil }
        seconds += Double(hour * 3_600 + minute * 60)
        guard utf8.count > 16 else { return Date(timeIntervalSince1970: seconds) }
        guard utf8.count >= 19, utf8[16] == UInt8(ascii: ":"), let second = number(utf8, 17, 2), second < 60 else {
            return nil
        }
        seconds += Double(second)
        guard utf8.count > 19 else { return Date(timeIntervalSince1970: seconds) }
        guard utf8[19] == UInt8(ascii: "."), utf8.count > 20, let fraction = number(utf8, 20, utf8.count - 20) else {
            return nil
        }
        seconds += Double(fraction) / pow(10, Double(utf8.count - 20))
        return Date(timeIntervalSince1970: seconds)
    }

    /// The decimal number in `count` bytes from `start`; nil if one is not a digit.
    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard count > 0, count <= 9, start + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[start..<start + count] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard
    /// Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
