import Foundation

/// How operators name a time on the command line: an age (`45s`, `30m`, `2h`, `7d`, `2w`),
/// or an ISO 8601 date (`2026-11-20T00:00:00Z`).
public enum Age {
    /// An age's seconds: a whole number (0-100,000) and one unit; nil for anything else.
    public static func seconds(_ text: String) -> TimeInterval? {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = text.last, let seconds = units[unit], let count = Int(text.dropLast()), count >= 0,
            count <= 100_000
        else { return nil }
        return TimeInterval(count) * seconds
    }

    /// That age before `now`, or the ISO 8601 date `text` names; nil for anything else.
    public static func date(_ text: String, now: Date) -> Date? {
        if let seconds = seconds(text) { return now.addingTimeInterval(-seconds) }
        return ISO8601DateFormatter().date(from: text)
    }
}
