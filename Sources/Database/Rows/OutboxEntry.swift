import Foundation
import PipelineCore
import Settlement

/// A row of `notification_outbox`: a webhook written in the same transaction as the
/// change it announces, delivered later by the notifier, at least once.
package struct OutboxEntry: Codable, Hashable, Sendable, Identifiable {
    package enum Status: String, Codable, Hashable, Sendable {
        case pending, delivered
        /// Given up on: retries exhausted or the receiver refused it for good.
        case failed
    }

    package var id: String
    package var type: WebhookType
    package var receiptID: String?
    /// The Apple notification whose application this event announces, if one did.
    package var notificationID: String?
    package var accountID: String
    package var body: String
    package var status: Status
    package var attempts: Int
    package var nextAttemptAt: Date?
    package var lastError: String?
    package var createdAt: Date
    package var deliveredAt: Date?
    /// The span that wrote it (W3C `traceparent`), which its deliveries continue.
    package var traceparent: String? = nil

    package init(
        id: String, type: WebhookType, receiptID: String? = nil, notificationID: String? = nil, accountID: String,
        body: String, status: Status, attempts: Int, nextAttemptAt: Date? = nil, lastError: String? = nil,
        createdAt: Date, deliveredAt: Date? = nil, traceparent: String? = nil
    ) {
        self.id = id
        self.type = type
        self.receiptID = receiptID
        self.notificationID = notificationID
        self.accountID = accountID
        self.body = body
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
        self.traceparent = traceparent
    }

    enum CodingKeys: String, CodingKey {
        case id, type
        case receiptID = "receipt_id"
        case notificationID = "notification_id"
        case accountID = "account_id"
        case body, status, attempts
        case nextAttemptAt = "next_attempt_at"
        case lastError = "last_error"
        case createdAt = "created_at"
        case deliveredAt = "delivered_at"
        case traceparent
    }
}

extension OutboxEntry {
    /// What every webhook's id starts with, before its ``TimeOrderedID``.
    package static let idPrefix = "evt_"

    /// A webhook the settlement engine decided, as a pending outbox row due at once, whose
    /// body is written here and never again (``Webhook/body(accountID:)``).
    package init(_ webhook: Webhook, now: Date) {
        // The app's backend knows its accounts by the ids it sent: an app's prefix stays in
        // the row (the notifier routes by it), not in the body it signs.
        let body = webhook.body(accountID: AppScope.bare(webhook.accountID))
        self.init(
            id: Self.idPrefix + TimeOrderedID.make(), type: webhook.type, receiptID: webhook.receiptID,
            notificationID: webhook.notificationID, accountID: webhook.accountID, body: body,
            status: .pending, attempts: 0, nextAttemptAt: now, lastError: nil, createdAt: now, deliveredAt: nil)
    }

    package var notification: OutboxWebhook {
        OutboxWebhook(
            id: id, type: type, receiptID: receiptID, notificationID: notificationID, accountID: accountID,
            body: body, attempts: attempts, createdAt: createdAt, traceparent: traceparent)
    }
}
