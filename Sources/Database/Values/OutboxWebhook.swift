import Foundation
import Settlement

/// A webhook waiting in the outbox, ready to POST.
public struct OutboxWebhook: Hashable, Sendable {
    /// The stable event id (`evt_...`): the `webhook-id` header, the same on every retry.
    public var id: String
    public var type: WebhookType
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
    /// The span that wrote it (W3C `traceparent`), sent with each attempt; nil when tracing was off.
    public var traceparent: String?

    public init(
        id: String, type: WebhookType, receiptID: String?, notificationID: String? = nil, accountID: String,
        body: String, attempts: Int, createdAt: Date, traceparent: String? = nil
    ) {
        self.id = id
        self.type = type
        self.receiptID = receiptID
        self.notificationID = notificationID
        self.accountID = accountID
        self.body = body
        self.attempts = attempts
        self.createdAt = createdAt
        self.traceparent = traceparent
    }
}
