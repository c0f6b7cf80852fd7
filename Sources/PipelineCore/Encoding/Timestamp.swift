import Foundation

/// ISO 8601 timestamps with milliseconds, in UTC.
///
/// Every message carries a few, so the form this type writes is written and read by plain
/// arithmetic: Foundation's ISO 8601 styles cost 1-3 µs a date and were a tenth of the
/// validator's JSON time. Anything else (offsets, other precisions, years outside
/// 1600-9999) goes through Foundation, so what is accepted is what Foundation accepts.
public enum Timestamp {
    /// `2026-11-24T19:11:33.729Z`: rounded to the nearest millisecond, so that what is read
    /// back is written again the same (Foundation's fractional seconds truncate, and a
    /// parsed `.730` may be a hair under it: read and written again, it became `.729`; found
    /// by the message fuzz target).
    public static func format(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.magnitude < 1e15, let text = CivilTime(milliseconds: Int64(milliseconds))?.iso8601 else {
            return foundationFormat(milliseconds: milliseconds)
        }
        return text
    }

    /// Reads ISO 8601 with a zone (`Z` or an offset such as `+08:00`), with or without
    /// fractional seconds. A time without a zone is ambiguous and refused.
    public static func parse(_ text: String) -> Date? {
        if let civil = CivilTime(text: text) {
            return Date(timeIntervalSince1970: Double(civil.millisecondsSince1970) / 1000)
        }
        // The zone must be part of the style: without it the offset is silently ignored.
        if let date = try? Date(
            text,
            strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)
        ) {
            return date
        }
        return try? Date(text, strategy: .iso8601)
    }

    private static func foundationFormat(milliseconds: Double) -> String {
        let seconds = (milliseconds / 1000).rounded(.down)
        let fraction = Int(milliseconds - seconds * 1000)
        let whole = Date(timeIntervalSince1970: seconds).formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted))
        // `...T15:57:38Z` becomes `...T15:57:38.729Z`.
        let digits = String(fraction)
        return String(whole.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}

/// A UTC instant between the years 1600 and 9999, to the millisecond, as its calendar fields
/// (before the Gregorian reform Foundation counts in the Julian calendar: left to it).
public struct CivilTime: Equatable, Sendable {
    public var year, month, day, hour, minute, second, millisecond: Int

    /// The fields of `milliseconds` since 1970, or nil outside the years 1600-9999.
    public init?(milliseconds: Int64) {
        let (seconds, millisecond) = Self.floorDivision(milliseconds, 1000)
        let (days, secondOfDay) = Self.floorDivision(seconds, 86_400)
        (year, month, day) = Self.civil(fromDays: Int(days))
        guard (1600...9999).contains(year) else { return nil }
        hour = Int(secondOfDay / 3600)
        minute = Int(secondOfDay / 60 % 60)
        second = Int(secondOfDay % 60)
        self.millisecond = Int(millisecond)
    }

    /// Exactly `yyyy-MM-ddTHH:mm:ssZ` or `yyyy-MM-ddTHH:mm:ss.SSSZ` with valid fields; nil
    /// for anything else, which the caller hands to Foundation.
    init?(text: String) {
        let utf8 = text.utf8
        guard utf8.count == 20 || utf8.count == 24, let parsed = Self.fields(of: Array(utf8)) else { return nil }
        self = parsed
    }

    var millisecondsSince1970: Int64 {
        let days = Int64(Self.days(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return seconds * 1000 + Int64(millisecond)
    }

    /// `2026-11-24T19:11:33.729Z`.
    public var iso8601: String { text(separator: "T", zone: "Z") }

    /// `2026-11-24 19:11:33.729`: how GRDB stores a date in SQLite.
    public var sqlite: String { text(separator: " ", zone: nil) }

    private func text(separator: Unicode.Scalar, zone: Unicode.Scalar?) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: separator))
        digits(hour, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(minute, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(second, 2)
        bytes.append(UInt8(ascii: "."))
        digits(millisecond, 3)
        if let zone { bytes.append(UInt8(ascii: zone)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second, self.millisecond) = (hour, minute, second, millisecond)
    }

    private static func fields(of text: [UInt8]) -> CivilTime? {
        guard text.last == UInt8(ascii: "Z") else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in text[start..<(start + count)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        func byte(_ index: Int, is character: Unicode.Scalar) -> Bool { text[index] == UInt8(ascii: character) }
        guard byte(4, is: "-"), byte(7, is: "-"), byte(10, is: "T"), byte(13, is: ":"), byte(16, is: ":"),
            text.count == 20 || byte(19, is: "."),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            let millisecond = text.count == 24 ? number(20, 3) : 0,
            year >= 1600, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        return CivilTime(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, millisecond: millisecond)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor - (value % divisor < 0 ? 1 : 0)
        return (quotient, value - quotient * divisor)
    }

    // Howard Hinnant's days_from_civil and civil_from_days (proleptic Gregorian calendar).

    /// Days since 1970-01-01 of a date in the proleptic Gregorian calendar.
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
