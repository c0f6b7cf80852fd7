import Foundation

/// One look at Apple's Notification History: its window, and what it found and fed.
public struct ReconciliationRun: Hashable, Sendable {
    /// Who started it.
    public enum Trigger: String, Hashable, Sendable, CaseIterable {
        /// The scheduled job (one leader at a time).
        case schedule
        /// An operator, with `iap reconcile`.
        case `operator`
    }

    public var trigger: Trigger
    /// A dry run only counts: it feeds nothing, and the next scheduled run does not start after it.
    public var dryRun: Bool
    public var windowStart: Date
    public var windowEnd: Date
    /// Notifications Apple listed as never delivered.
    public var examined: Int
    /// Of those, the ones we never stored.
    public var missing: Int
    /// Of those, the ones stored now, for the relay to publish through the validate queue.
    public var fed: Int
    /// Why the run stopped short, if it did.
    public var error: String?
    public var startedAt: Date
    public var finishedAt: Date

    public init(
        trigger: Trigger, dryRun: Bool, windowStart: Date, windowEnd: Date, examined: Int = 0, missing: Int = 0,
        fed: Int = 0, error: String? = nil, startedAt: Date, finishedAt: Date
    ) {
        self.trigger = trigger
        self.dryRun = dryRun
        self.windowStart = windowStart
        self.windowEnd = windowEnd
        self.examined = examined
        self.missing = missing
        self.fed = fed
        self.error = error
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}
