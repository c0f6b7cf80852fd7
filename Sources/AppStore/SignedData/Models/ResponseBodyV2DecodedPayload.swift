import Foundation

/// An App Store Server Notification V2 (`signedPayload`), decoded.
///
/// `data` or `summary` says which app and environment it is for; `data` carries the signed
/// transaction and renewal info, themselves JWS to verify. A `TEST` notification carries neither.
/// Raw values and typed views as in ``JWSTransactionDecodedPayload``.
/// See [responseBodyV2DecodedPayload](https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload).
public struct ResponseBodyV2DecodedPayload: Codable, Hashable, Sendable {
    /// `notificationType` as sent: `REFUND`, `DID_RENEW`, ...; see ``notificationType``.
    public var rawNotificationType: String?
    /// `subtype` as sent: `GRACE_PERIOD`, ...; see ``subtype``.
    public var rawSubtype: String?
    /// [notificationUUID](https://developer.apple.com/documentation/appstoreservernotifications/notificationuuid):
    /// the same notification sent again has the same id.
    public var notificationUUID: String?
    /// [data](https://developer.apple.com/documentation/appstoreservernotifications/data)
    public var data: NotificationData?
    /// [version](https://developer.apple.com/documentation/appstoreservernotifications/version)
    public var version: String?
    /// [signedDate](https://developer.apple.com/documentation/appstoreserverapi/signeddate)
    public var signedDate: Date?
    /// [summary](https://developer.apple.com/documentation/appstoreservernotifications/summary):
    /// for renewal-date extensions to all subscribers, instead of `data`.
    public var summary: Summary?
    /// [appData](https://developer.apple.com/documentation/appstoreservernotifications/appdata):
    /// for notifications about the app itself (`RESCIND_CONSENT`), instead of `data`.
    public var appData: AppData?

    /// Creates a payload; every field is optional, as on the wire.
    public init(
        notificationType: NotificationType? = nil, subtype: Subtype? = nil, notificationUUID: String? = nil,
        data: NotificationData? = nil, version: String? = nil, signedDate: Date? = nil, summary: Summary? = nil,
        appData: AppData? = nil
    ) {
        self.appData = appData
        self.rawNotificationType = notificationType?.rawValue
        self.rawSubtype = subtype?.rawValue
        self.notificationUUID = notificationUUID
        self.data = data
        self.version = version
        self.signedDate = signedDate
        self.summary = summary
    }

    enum CodingKeys: String, CodingKey {
        case rawNotificationType = "notificationType"
        case rawSubtype = "subtype"
        case notificationUUID, data, version, signedDate, summary, appData
    }

    /// [notificationType](https://developer.apple.com/documentation/appstoreservernotifications/notificationtype)
    public var notificationType: NotificationType? {
        get { rawNotificationType.flatMap(NotificationType.init(rawValue:)) }
        set { rawNotificationType = newValue?.rawValue }
    }

    /// [subtype](https://developer.apple.com/documentation/appstoreservernotifications/subtype)
    public var subtype: Subtype? {
        get { rawSubtype.flatMap(Subtype.init(rawValue:)) }
        set { rawSubtype = newValue?.rawValue }
    }
}
