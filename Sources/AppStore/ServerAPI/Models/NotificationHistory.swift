import Foundation

/// The body of Get Notification History
/// ([NotificationHistoryRequest](https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest)):
/// a window of at most 180 days, in the last 180 days, and optional filters.
public struct NotificationHistoryRequest: Codable, Hashable, Sendable {
    /// `startDate`, in milliseconds since 1970, inclusive.
    public var startDate: Int64
    /// `endDate`, in milliseconds since 1970, exclusive.
    public var endDate: Int64
    /// `notificationType`, such as `REFUND`.
    public var notificationType: String?
    /// `transactionId`: only this customer's notifications.
    public var transactionId: String?
    /// `onlyFailures`: only the notifications that never reached the server.
    public var onlyFailures: Bool?

    /// Creates a request for the window `start..<end`.
    public init(
        start: Date, end: Date, notificationType: String? = nil, transactionID: String? = nil,
        onlyFailures: Bool? = nil
    ) {
        self.startDate = Int64((start.timeIntervalSince1970 * 1000).rounded(.down))
        self.endDate = Int64((end.timeIntervalSince1970 * 1000).rounded(.down))
        self.notificationType = notificationType
        self.transactionId = transactionID
        self.onlyFailures = onlyFailures
    }
}

/// One page of Get Notification History
/// ([NotificationHistoryResponse](https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponse)).
public struct NotificationHistoryResponse: Codable, Hashable, Sendable {
    /// `notificationHistory`: the notifications, each with its delivery attempts.
    public var notificationHistory: [NotificationHistoryResponseItem]?
    /// `hasMore`: whether another page follows.
    public var hasMore: Bool?
    /// `paginationToken`: what asks for the next page.
    public var paginationToken: String?

    public init(
        notificationHistory: [NotificationHistoryResponseItem]? = nil, hasMore: Bool? = nil,
        paginationToken: String? = nil
    ) {
        self.notificationHistory = notificationHistory
        self.hasMore = hasMore
        self.paginationToken = paginationToken
    }
}

/// A notification Apple sent, as it was signed, and how each attempt to deliver it went
/// ([NotificationHistoryResponseItem](https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponseitem)).
public struct NotificationHistoryResponseItem: Codable, Hashable, Sendable {
    /// `signedPayload`: the notification, exactly as it was (or would have been) posted.
    public var signedPayload: String
    /// `sendAttempts`: up to six, oldest first.
    public var sendAttempts: [SendAttemptItem]?

    public init(signedPayload: String, sendAttempts: [SendAttemptItem]? = nil) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}

/// One attempt to deliver a notification
/// ([SendAttemptItem](https://developer.apple.com/documentation/appstoreserverapi/sendattemptitem)).
public struct SendAttemptItem: Codable, Hashable, Sendable {
    /// `attemptDate`, in milliseconds since 1970.
    public var attemptDate: Int64
    /// `sendAttemptResult`: `SUCCESS`, `TIMED_OUT`, `NO_RESPONSE`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, ...
    public var sendAttemptResult: String

    public init(attemptDate: Int64, sendAttemptResult: String) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
    }
}
