import Foundation
import GRDB

/// The webhook event types, as the `type` field of a webhook body.
public enum NotificationType: String, Codable, Hashable, Sendable, CaseIterable {
    case receiptCredited = "receipt.credited"
    case receiptRejected = "receipt.rejected"
    case receiptDead = "receipt.dead"
    /// A transaction's credit was taken back: Apple refunded or revoked it.
    case purchaseRefunded = "purchase.refunded"
    /// Apple reversed a refund: the credit it took is given again.
    case purchaseRefundReversed = "purchase.refund_reversed"
    /// A renewal of a subscription was credited to the account it is bound to.
    case subscriptionRenewed = "subscription.renewed"
    /// A subscription ended: its entitlement now expires at `expires_at`.
    case subscriptionExpired = "subscription.expired"

    /// Events about one Apple transaction (rather than a receipt's end). Their `data` is
    /// `{transaction_id, original_transaction_id, product_id, currency, amount, entitlement,
    /// expires_at, notification_uuid}`, and their body carries `notification_id`.
    public var isTransactionEvent: Bool {
        switch self {
        case .receiptCredited, .receiptRejected, .receiptDead: false
        case .purchaseRefunded, .purchaseRefundReversed, .subscriptionRenewed, .subscriptionExpired: true
        }
    }
}

extension NotificationType: DatabaseValueConvertible {}

/// A webhook waiting in the outbox, ready to POST.
public struct OutboxNotification: Hashable, Sendable {
    /// The stable event id (`evt_...`): the `webhook-id` header, the same on every retry.
    public var id: String
    public var type: NotificationType
    public var receiptID: String?
    /// The Apple notification that caused the event, for transaction events it caused.
    public var notificationID: String?
    public var accountID: String
    /// The exact JSON body to send (and sign), built once when the row was written:
    /// `{"account_id","data","receipt_id","type"}` with sorted keys (and `notification_id`
    /// for transaction events).
    public var body: String
    /// Delivery attempts made so far.
    public var attempts: Int
    public var createdAt: Date

    public init(
        id: String, type: NotificationType, receiptID: String?, notificationID: String? = nil, accountID: String,
        body: String, attempts: Int, createdAt: Date
    ) {
        self.id = id
        self.type = type
        self.receiptID = receiptID
        self.notificationID = notificationID
        self.accountID = accountID
        self.body = body
        self.attempts = attempts
        self.createdAt = createdAt
    }
}
