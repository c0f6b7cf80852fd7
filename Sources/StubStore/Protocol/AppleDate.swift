import Foundation
import PipelineCore

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

    /// The two zones Apple writes, found once.
    private static let zones: [String: TimeZone] = Dictionary(
        uniqueKeysWithValues: ["Etc/GMT", "America/Los_Angeles"].map { ($0, timeZone($0)) })

    private static func timeZone(_ identifier: String) -> TimeZone {
        TimeZone(identifier: identifier) ?? TimeZone(secondsFromGMT: 0)!
    }

    /// `2023-11-14 22:13:20 Etc/GMT`: the zone's offset, then arithmetic (a calendar per
    /// date, then a cached one, were a tenth and then a twentieth of the stub's CPU under
    /// `iap-lab bench`).
    static func format(_ date: Date, zone: String) -> String {
        let timeZone = zones[zone] ?? timeZone(zone)
        let local = ((date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))) * 1000).rounded(.down)
        guard local.magnitude < 1e15, let civil = CivilTime(milliseconds: Int64(local)) else {
            return calendarFormat(date, timeZone: timeZone, zone: zone)  // outside the years 1600-9999
        }
        // `2023-11-14 22:13:20.000` without its milliseconds: Apple writes whole seconds.
        return civil.sqlite.dropLast(4) + " " + zone
    }

    private static func calendarFormat(_ date: Date, timeZone: TimeZone, zone: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return
            "\(c.year ?? 1970)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) \(zone)"
    }
}
