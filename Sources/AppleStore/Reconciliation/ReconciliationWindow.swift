import Foundation
import PipelineCore

/// The span of Apple's Notification History one reconciliation reads.
///
/// Pure: the scheduled run starts where the last complete one ended (less an overlap, for
/// a notification first sent a moment before that end and listed late), an operator names
/// the start (`--since 7d`). Apple keeps 180 days.
public struct ReconciliationWindow: Hashable, Sendable, CustomStringConvertible {
    public var start: Date
    public var end: Date

    /// How far back Apple's history reaches.
    public static let maximumAge: TimeInterval = 180 * 86_400
    /// How far a scheduled run reaches back over the last one's end.
    public static let overlap: TimeInterval = 3_600
    /// How far back the first scheduled run looks.
    public static let firstLookBack: TimeInterval = 7 * 86_400

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }

    /// The scheduled run's window: from the last complete run's end (less ``overlap``), or
    /// ``firstLookBack`` ago, to now; never older than Apple keeps.
    public static func scheduled(coveredUntil: Date?, now: Date) -> Self {
        let from = coveredUntil.map { $0.addingTimeInterval(-overlap) } ?? now.addingTimeInterval(-firstLookBack)
        // A minute inside Apple's limit, so the request is not refused as too old on arrival.
        return Self(start: max(from, now.addingTimeInterval(-maximumAge + 60)), end: now)
    }

    /// An operator's window, from `since` to `until` (now if nil).
    /// - Throws: ``ReconciliationError`` naming the problem: a start older than Apple keeps,
    ///   or not before the end.
    public static func requested(since: Date, until: Date?, now: Date) throws(ReconciliationError) -> Self {
        let end = min(until ?? now, now)
        guard since >= now.addingTimeInterval(-maximumAge) else {
            throw ReconciliationError("--since reaches back more than 180 days, and Apple keeps no older history")
        }
        guard since < end else { throw ReconciliationError("--since must be before --until (and before now)") }
        return Self(start: since, end: end)
    }

    /// `7d`, `36h`, `90m` before `now` (see `Age`), or an ISO 8601 date (`2026-11-20T00:00:00Z`).
    /// - Throws: ``ReconciliationError`` naming the text and the forms it may take.
    public static func parse(_ text: String, now: Date) throws(ReconciliationError) -> Date {
        // A zero age is "now": an empty window, refused here rather than as an empty run.
        if let date = Age.date(text, now: now), date < now || Age.seconds(text) == nil { return date }
        throw ReconciliationError(
            "\(text.prefix(64)) is not a time: use an age (90m, 36h, 7d, 2w) "
                + "or an ISO 8601 date (2026-11-20T00:00:00Z)")
    }

    public var description: String {
        let format = ISO8601DateFormatter()
        return "\(format.string(from: start)) to \(format.string(from: end))"
    }
}

/// A reconciliation that cannot run as asked.
public struct ReconciliationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
