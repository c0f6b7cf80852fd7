import Foundation

/// A verified store notification, reduced to what the fulfiller applies: an App Store
/// Server Notification V2, or a Google Play real-time developer notification.
///
/// For Apple's, the validator verifies the `signedPayload` and its embedded
/// `signedTransactionInfo` and `signedRenewalInfo`; for Google's, it reads the purchase the
/// notice names from the Developer API. Either is carried in a ``Verdict``. See
/// https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
public struct StoreNotification: Codable, Hashable, Sendable {
    /// Apple's id of this notification (Google's: the Pub/Sub message id); the same
    /// notification sent again has the same id.
    public var notificationUUID: String
    /// `REFUND`, `DID_RENEW`, ... as Apple sends it, `SUBSCRIPTION_RENEWED`, ... as Google
    /// names it; see ``type``.
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

        /// Google's notifications (``GoogleNotice/typeName``) that mean what one of Apple's
        /// does; the others (`SUBSCRIPTION_CANCELED`, `SUBSCRIPTION_ON_HOLD`, ...) change
        /// nothing until what they lead to (an expiry, a renewal) is announced. A grace
        /// period carries the subtype `GRACE_PERIOD`, as Apple's does. A pending refund review
        /// asks what Apple's consumption request asks: recorded against the purchase's account,
        /// answered later, no money moved.
        static let google: [String: Kind] = [
            "SUBSCRIPTION_PURCHASED": .subscribed, "ONE_TIME_PRODUCT_PURCHASED": .subscribed,
            "SUBSCRIPTION_RENEWED": .didRenew, "SUBSCRIPTION_RECOVERED": .didRenew, "SUBSCRIPTION_RESTARTED": .didRenew,
            "SUBSCRIPTION_IN_GRACE_PERIOD": .didFailToRenew, "SUBSCRIPTION_EXPIRED": .expired,
            "SUBSCRIPTION_REVOKED": .revoke, "VOIDED_PURCHASE": .refund, "TEST_NOTIFICATION": .test,
            "PENDING_REFUND_REVIEW": .consumptionRequest,
        ]

        /// Apple's notifications that mean what another does: `ONE_TIME_CHARGE` (a consumable,
        /// non-consumable or non-renewing purchase, in production since May 2025) reports a
        /// paid transaction as `SUBSCRIBED` does, credited to the account its token names.
        static let apple: [String: Kind] = ["ONE_TIME_CHARGE": .subscribed]
    }

    /// What the pipeline does with it: Apple's type, or the Apple type Google's means.
    public var type: Kind? {
        // An upgrade takes effect at once: its notice carries the new product's transaction,
        // which is credited as a purchase of the subscription (Apple's other preference changes
        // wait for the renewal that brings them).
        if rawType == "DID_CHANGE_RENEWAL_PREF", subtype == "UPGRADE" { return .subscribed }
        return Kind(rawValue: rawType) ?? Kind.google[rawType] ?? Kind.apple[rawType]
    }

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
