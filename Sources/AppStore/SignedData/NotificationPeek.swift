import Foundation
import PipelineCore

/// What an App Store Server Notification says about itself, read WITHOUT checking its
/// signature: only to tell whether we already hold it. Nothing read here is applied: the
/// notification goes through the validator, which verifies it like any other.
public struct NotificationPeek: Hashable, Sendable {
    public var notificationUUID: String
    public var notificationType: String

    /// The notification's UUID and type; nil when `signedPayload` is not a JWS whose
    /// payload is JSON with both.
    public init?(_ signedPayload: String) {
        let parts = signedPayload.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard signedPayload.utf8.count <= CompactJWS.maximumLength, parts.count == 3,
            let payload = Base64URL.decode(utf8: parts[1]),
            let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
            let uuid = object["notificationUUID"] as? String, !uuid.isEmpty,
            let type = object["notificationType"] as? String
        else { return nil }
        self.notificationUUID = uuid
        self.notificationType = type
    }
}
