import Foundation
import PipelineCore

/// What an App Store Server Notification says about itself, read WITHOUT checking its
/// signature: only to tell whether we already hold it. Nothing read here is applied: the
/// notification goes through the validator, which verifies it like any other.
public struct NotificationPeek: Hashable, Sendable {
    public var notificationUUID: String
    public var notificationType: String
    /// The app it says it is about (`data`, `summary` or `appData`'s `bundleId`): where a
    /// pipeline of several apps routes it (its verifier checks it).
    public var bundleID: String?

    /// The notification's UUID and type; nil when `signedPayload` is not a JWS whose
    /// payload is JSON with both.
    public init?(_ signedPayload: String) {
        guard let object = CompactJWS.unverifiedPayload(signedPayload),
            let uuid = object["notificationUUID"] as? String, !uuid.isEmpty,
            let type = object["notificationType"] as? String
        else { return nil }
        self.notificationUUID = uuid
        self.notificationType = type
        self.bundleID =
            ["data", "summary", "appData"].lazy
            .compactMap { (object[$0] as? [String: Any])?["bundleId"] as? String }.first
    }
}
