import Foundation

/// An App Store Server Notification as its status read shows it.
///
/// Encodes with snake_case keys (`notification_id`, `status`, `reason`, `notification_uuid`,
/// ...); use `WireCoding.encoder()` for ISO 8601 dates.
public struct NotificationDetails: Codable, Hashable, Sendable {
    /// Our id, given by the intake.
    public var notificationID: String
    public var status: NotificationStatus
    /// Why it was rejected or dead-lettered, the last transient error while retrying, or,
    /// once applied, why it changed nothing (`duplicate of <id>`, `unbound`,
    /// `already_refunded`, `consumption_request`, ...); nil when it was applied in full.
    public var reason: String?
    public var attempts: Int
    /// Apple's id, once verified and applied (nil on a duplicate's row).
    public var notificationUUID: String?
    /// `REFUND`, `DID_RENEW`, ... once verified.
    public var type: String?
    public var subtype: String?
    public var environment: String?
    public var signedDate: Date?
    public var transactionID: String?
    public var originalTransactionID: String?
    public var productID: String?
    /// The account it changed, or whose subscription it concerns.
    public var accountID: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// When the broker confirmed its message; nil until then.
    public var publishedAt: Date?

    public init(
        notificationID: String, status: NotificationStatus, reason: String?, attempts: Int,
        notificationUUID: String?, type: String?, subtype: String?, environment: String?, signedDate: Date?,
        transactionID: String?, originalTransactionID: String?, productID: String?, accountID: String?,
        createdAt: Date, updatedAt: Date, publishedAt: Date?
    ) {
        self.notificationID = notificationID
        self.status = status
        self.reason = reason
        self.attempts = attempts
        self.notificationUUID = notificationUUID
        self.type = type
        self.subtype = subtype
        self.environment = environment
        self.signedDate = signedDate
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.accountID = accountID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.publishedAt = publishedAt
    }

    enum CodingKeys: String, CodingKey {
        case notificationID = "notification_id"
        case status, reason, attempts
        case notificationUUID = "notification_uuid"
        case type, subtype, environment
        case signedDate = "signed_date"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case accountID = "account_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case publishedAt = "published_at"
    }
}

/// A `CONSUMPTION_REQUEST` Apple sent: a customer asked for a refund of a consumable and
/// Apple asks for consumption data. Recorded for an operator (answering is not automated).
public struct ConsumptionRequest: Codable, Hashable, Sendable {
    public var notificationID: String
    public var notificationUUID: String
    public var transactionID: String?
    public var originalTransactionID: String?
    public var productID: String?
    /// The account the transaction credited (or its subscription is bound to), if any.
    public var accountID: String?
    public var environment: String?
    public var signedDate: Date?
    /// When the intake accepted it.
    public var receivedAt: Date

    public init(
        notificationID: String, notificationUUID: String, transactionID: String?, originalTransactionID: String?,
        productID: String?, accountID: String?, environment: String?, signedDate: Date?, receivedAt: Date
    ) {
        self.notificationID = notificationID
        self.notificationUUID = notificationUUID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.accountID = accountID
        self.environment = environment
        self.signedDate = signedDate
        self.receivedAt = receivedAt
    }

    enum CodingKeys: String, CodingKey {
        case notificationID = "notification_id"
        case notificationUUID = "notification_uuid"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case accountID = "account_id"
        case environment
        case signedDate = "signed_date"
        case receivedAt = "received_at"
    }
}
