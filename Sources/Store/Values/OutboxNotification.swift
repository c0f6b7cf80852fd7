import Foundation
import GRDB

/// The webhook event types, as the `type` field of a webhook body.
public enum NotificationType: String, Codable, Hashable, Sendable, CaseIterable {
    case receiptCredited = "receipt.credited"
    case receiptRejected = "receipt.rejected"
    case receiptDead = "receipt.dead"
    case purchaseRefunded = "purchase.refunded"
    case subscriptionRenewed = "subscription.renewed"
    case subscriptionExpired = "subscription.expired"
}

extension NotificationType: DatabaseValueConvertible {}

/// A webhook waiting in the outbox, ready to POST.
public struct OutboxNotification: Hashable, Sendable {
    /// The stable event id (`evt_...`): the `webhook-id` header, the same on every retry.
    public var id: String
    public var type: NotificationType
    public var receiptID: String?
    public var accountID: String
    /// The exact JSON body to send (and sign), built once when the row was written:
    /// `{"account_id","data","receipt_id","type"}` with sorted keys.
    public var body: String
    /// Delivery attempts made so far.
    public var attempts: Int
    public var createdAt: Date

    public init(
        id: String, type: NotificationType, receiptID: String?, accountID: String, body: String, attempts: Int,
        createdAt: Date
    ) {
        self.id = id
        self.type = type
        self.receiptID = receiptID
        self.accountID = accountID
        self.body = body
        self.attempts = attempts
        self.createdAt = createdAt
    }
}
