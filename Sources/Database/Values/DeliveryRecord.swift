import Foundation

/// The outcome of one webhook delivery attempt, as the notifier records it: many are
/// written in one transaction by ``OutboxRepository/recordDeliveries(_:)``.
public struct DeliveryRecord: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        /// The receiver answered 2xx: never sent again.
        case delivered
        /// The attempt failed with `error`; tried again at `nextAttemptAt`, or given up
        /// on (status `failed`) when that is nil.
        case failed(error: String, nextAttemptAt: Date?)
    }

    /// The notification's event id.
    public var id: String
    public var outcome: Outcome
    /// When the attempt ended.
    public var at: Date

    public init(id: String, outcome: Outcome, at: Date) {
        self.id = id
        self.outcome = outcome
        self.at = at
    }
}
