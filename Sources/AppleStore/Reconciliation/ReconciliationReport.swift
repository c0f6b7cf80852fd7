import Foundation

/// What one reconciliation found and did, per deployment, as `iap reconcile` prints it.
public struct ReconciliationReport: Hashable, Sendable, Encodable {
    /// One notification Apple could not deliver and we never stored.
    public struct Missing: Hashable, Sendable, Encodable {
        public var environment: String
        public var notificationUUID: String?
        public var notificationType: String?
        /// Our id for it, once stored (nil on a dry run).
        public var notificationID: String?

        enum CodingKeys: String, CodingKey {
            case environment
            case notificationUUID = "notification_uuid"
            case notificationType = "notification_type"
            case notificationID = "notification_id"
        }
    }

    /// What one deployment's history held.
    public struct Deployment: Hashable, Sendable, Encodable {
        public var environment: String
        /// Undelivered notifications Apple listed.
        public var examined = 0
        public var missing: [Missing] = []
        /// Stored now, for the relay to publish.
        public var fed = 0
    }

    public var window: ReconciliationWindow
    public var dryRun: Bool
    public var environments: [Deployment] = []
    /// Why it stopped short, if it did (what was fed before stays fed).
    public var error: String?

    public var examined: Int { environments.reduce(0) { $0 + $1.examined } }
    public var missing: [Missing] { environments.flatMap(\.missing) }
    public var fed: Int { environments.reduce(0) { $0 + $1.fed } }

    enum CodingKeys: String, CodingKey {
        case since, until
        case dryRun = "dry_run"
        case environments, examined, missing, fed, error
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(window.start, forKey: .since)
        try container.encode(window.end, forKey: .until)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(environments, forKey: .environments)
        try container.encode(examined, forKey: .examined)
        try container.encode(missing.count, forKey: .missing)
        try container.encode(fed, forKey: .fed)
        try container.encode(error, forKey: .error)
    }
}
