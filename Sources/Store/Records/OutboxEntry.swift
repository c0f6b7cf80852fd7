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
    /// A new pending notification, due at once, whose body is built here and never again:
    /// `{"account_id", "data", "receipt_id", "type"}` with sorted keys (the account as its
    /// app's backend knows it), and for the events of
    /// a purchase or subscription (``WebhookType/isTransactionEvent``) `notification_id`
    /// too (null when no Apple notification caused it).
    init(
        type: WebhookType, receiptID: String?, notificationID: String? = nil, accountID: String,
        data: some Encodable, now: Date
    ) throws {
        // The app's backend knows its accounts by the ids it sent: an app's prefix stays in
        // the row (the notifier routes by it), not in the body it signs.
        let body = WebhookBody(
            type: type, receiptID: receiptID, notificationID: notificationID, accountID: AppScope.bare(accountID),
            data: data)
        let json = try WireCoding.encoder().encode(body)
        self.init(
            id: "evt_" + TimeOrderedID.make(), type: type, receiptID: receiptID,
            notificationID: notificationID, accountID: accountID, body: String(decoding: json, as: UTF8.self),
            status: .pending, attempts: 0, nextAttemptAt: now, lastError: nil, createdAt: now, deliveredAt: nil)
    }

    /// A webhook the settlement engine decided, as a pending outbox row.
    init(_ webhook: Webhook, now: Date) throws {
        try self.init(
            type: webhook.type, receiptID: webhook.receiptID, notificationID: webhook.notificationID,
            accountID: webhook.accountID, data: webhook.data, now: now)
    }

    var notification: OutboxWebhook {
        OutboxWebhook(
            id: id, type: type, receiptID: receiptID, notificationID: notificationID, accountID: accountID,
            body: body, attempts: attempts, createdAt: createdAt, traceparent: traceparent)
    }
}

/// The webhook body as the contract fixes it.
private struct WebhookBody<Payload: Encodable>: Encodable {
    var type: WebhookType
    var receiptID: String?
    var notificationID: String?
    var accountID: String
    var data: Payload

    enum CodingKeys: String, CodingKey {
        case type
        case receiptID = "receipt_id"
        case notificationID = "notification_id"
        case accountID = "account_id"
        case data
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        if type.isTransactionEvent {
            // The receipt that credited the transaction, when one did: null, not left out.
            try container.encode(receiptID, forKey: .receiptID)
            try container.encode(notificationID, forKey: .notificationID)
        } else {
            try container.encodeIfPresent(receiptID, forKey: .receiptID)
        }
        try container.encode(accountID, forKey: .accountID)
        try container.encode(data, forKey: .data)
    }
}
