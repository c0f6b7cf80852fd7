/// Where an App Store Server Notification is in the pipeline, as its status read shows it.
public enum NotificationStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// Committed by the intake (Apple was answered 200); the broker has not confirmed it yet.
    case received
    /// On the validate queue.
    case validating
    /// A verify attempt failed transiently; it waits on a delay tier.
    case retrying
    /// Verified and applied to the accounts (or recognised as a duplicate, or as
    /// needing nothing: ``NotificationDetails/reason`` says which).
    case applied
    /// Failed verification (forged, wrong app, malformed).
    case rejected
    /// Dead-lettered after its attempts ran out, or as poison.
    case dead

    /// Applied, rejected and dead are final: no later verdict changes the notification.
    public var isFinal: Bool {
        switch self {
        case .applied, .rejected, .dead: true
        case .received, .validating, .retrying: false
        }
    }
}
