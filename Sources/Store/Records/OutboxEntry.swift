import Database
import Foundation
import PipelineCore
import Settlement

/// A row of `notification_outbox`: a webhook written in the same transaction as the
/// change it announces, delivered later by the notifier, at least once.
struct OutboxEntry: Codable, Hashable, Sendable, Identifiable {
    enum Status: String, Codable, Hashable, Sendable {
        case pending, delivered
        /// Given up on: retries exhausted or the receiver refused it for good.
        case failed
    }

    var id: String
    var type: WebhookType
    var receiptID: String?
    /// The Apple notification whose application this event announces, if one did.
    var notificationID: String?
    var accountID: String
    var body: String
    var status: Status
    var attempts: Int
    var nextAttemptAt: Date?
    var lastError: String?
    var createdAt: Date
    var deliveredAt: Date?
    /// The span that wrote it (W3C `traceparent`), which its deliveries continue.
    var traceparent: String? = nil

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
    static let idPrefix = "evt_"

    /// A webhook the settlement engine decided, as a pending outbox row due at once, whose
    /// body is written here and never again (``Webhook/body(accountID:)``).
    init(_ webhook: Webhook, now: Date) {
        // The app's backend knows its accounts by the ids it sent: an app's prefix stays in
        // the row (the notifier routes by it), not in the body it signs.
        let body = webhook.body(accountID: AppScope.bare(webhook.accountID))
        self.init(
            id: Self.idPrefix + TimeOrderedID.make(), type: webhook.type, receiptID: webhook.receiptID,
            notificationID: webhook.notificationID, accountID: webhook.accountID, body: body,
            status: .pending, attempts: 0, nextAttemptAt: now, lastError: nil, createdAt: now, deliveredAt: nil)
    }

    var notification: OutboxWebhook {
        OutboxWebhook(
            id: id, type: type, receiptID: receiptID, notificationID: notificationID, accountID: accountID,
            body: body, attempts: attempts, createdAt: createdAt, traceparent: traceparent)
    }
}
