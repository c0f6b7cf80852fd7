import Foundation

/// A verified App Store Server Notification V2, reduced to what the fulfiller applies.
///
/// The validator verifies the `signedPayload` and its embedded `signedTransactionInfo` and
/// `signedRenewalInfo`, then carries this in a ``Verdict``. See
/// https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
public struct AppleNotification: Codable, Hashable, Sendable {
    /// Apple's id of this notification; the same notification sent again has the same id.
    public var notificationUUID: String
    /// `REFUND`, `DID_RENEW`, ... as Apple sends it; see ``type``.
    public var rawType: String
    /// `GRACE_PERIOD`, `AUTO_RENEW_DISABLED`, ... when Apple sends one.
    public var subtype: String?
    /// `Production` or `Sandbox`.
    public var environment: String?
    public var signedDate: Date?
    /// The decoded `signedTransactionInfo`, when the notification carries one.
    public var transaction: VerifiedTransaction?
    /// From the decoded `signedRenewalInfo`: the end of the billing grace period.
    public var gracePeriodExpiresDate: Date?

    /// The notification types the pipeline acts on; others are recorded and acknowledged.
    public enum Kind: String, Sendable, CaseIterable {
        case refund = "REFUND"
        case revoke = "REVOKE"
        case refundReversed = "REFUND_REVERSED"
        case didRenew = "DID_RENEW"
        case subscribed = "SUBSCRIBED"
        case expired = "EXPIRED"
        case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
        case didFailToRenew = "DID_FAIL_TO_RENEW"
        case consumptionRequest = "CONSUMPTION_REQUEST"
        case test = "TEST"
    }

    public var type: Kind? { Kind(rawValue: rawType) }

    public init(
        notificationUUID: String, type: String, subtype: String? = nil, environment: String? = nil,
        signedDate: Date? = nil, transaction: VerifiedTransaction? = nil, gracePeriodExpiresDate: Date? = nil
    ) {
        self.notificationUUID = notificationUUID
        self.rawType = type
        self.subtype = subtype
        self.environment = environment
        self.signedDate = signedDate
        self.transaction = transaction
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
    }

    enum CodingKeys: String, CodingKey {
        case notificationUUID = "notification_uuid"
        case rawType = "type"
        case subtype, environment
        case signedDate = "signed_date"
        case transaction
        case gracePeriodExpiresDate = "grace_period_expires_date"
    }
}
