import Foundation
import PipelineCore

/// The dates inside an app receipt: IA5Strings in RFC 3339, as `2024-02-23T17:27:16Z`.
///
/// Apple writes `Z`; receipts Xcode signs write an offset without a colon
/// (`2020-07-22T18:33:15+0100`), and some writers add fractional seconds, so all three are read.
/// Parsed by hand: a formatter per call would dominate the cost of reading a receipt.
enum ReceiptDate {
    /// The date `text` names, or nil when it is empty or not RFC 3339.
    static func parse(_ text: some StringProtocol) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
            let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, let digit = digit(bytes[index]) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard let offset = zoneOffset(bytes[index...]) else { return nil }
        let days = CivilTime.days(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// `date` as Apple writes it: UTC, whole seconds, `Z`.
    static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let rest = total - days * 86_400
        let (year, month, day) = CivilTime.civil(fromDays: days)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, rest / 3600, rest / 60 % 60, rest % 60)
    }

    // MARK: Pieces

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<(start + count) {
            guard let digit = digit(bytes[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// Seconds east of UTC: `Z`, `+hh:mm` or `+hhmm`; nil for anything else, trailing bytes included.
    private static func zoneOffset(_ zone: ArraySlice<UInt8>) -> Int? {
        let zone = Array(zone)
        if zone == [UInt8(ascii: "Z")] || zone == [UInt8(ascii: "z")] { return 0 }
        guard zone.count == 5 || zone.count == 6, zone[0] == UInt8(ascii: "+") || zone[0] == UInt8(ascii: "-")
        else { return nil }
        let minutesAt = zone.count == 6 ? 4 : 3
        guard zone.count == 5 || zone[3] == UInt8(ascii: ":"), let hours = number(zone, 1, 2),
            let minutes = number(zone, minutesAt, 2), hours < 24, minutes < 60
        else { return nil }
        let seconds = (hours * 60 + minutes) * 60
        return zone[0] == UInt8(ascii: "+") ? seconds : -seconds
    }
}
