import Foundation

/// A date as Apple writes it three times over: `name` (`2023-11-14 22:13:20 Etc/GMT`),
/// `name_ms` (milliseconds since 1970, a string) and `name_pst` (Pacific time).
struct AppleDate: Sendable {
    var date: Date

    init(_ date: Date) {
        self.date = date
    }

    var milliseconds: String { String(Int64((date.timeIntervalSince1970 * 1000).rounded())) }

    func encode(into encoder: any Encoder, key: String) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(Self.format(date, zone: "Etc/GMT"), forKey: AnyKey(stringValue: key))
        try container.encode(milliseconds, forKey: AnyKey(stringValue: key + "_ms"))
        try container.encode(Self.format(date, zone: "America/Los_Angeles"), forKey: AnyKey(stringValue: key + "_pst"))
    }

    /// The two zones Apple writes, their calendars made once: making one per date was a
    /// tenth of the stub's CPU under `iap bench`.
    private static let calendars: [String: Calendar] = Dictionary(
        uniqueKeysWithValues: ["Etc/GMT", "America/Los_Angeles"].map { ($0, calendar(zone: $0)) })

    private static func calendar(zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone) ?? TimeZone(secondsFromGMT: 0)!
        return calendar
    }

    static func format(_ date: Date, zone: String) -> String {
        let calendar = calendars[zone] ?? Self.calendar(zone: zone)
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return
            "\(c.year ?? 1970)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) \(zone)"
    }
}
