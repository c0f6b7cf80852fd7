import Foundation
import Settlement

/// One outbox row as operators review it: what was sent to whom, and how it went.
public struct WebhookLogEntry: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Hashable, Sendable, CaseIterable {
        /// Waiting for its first attempt, or for the next after a failure.
        case pending
        case delivered
        /// Given up on after its attempts: replay it once the receiver is fixed.
        case failed
    }

    public var id: String
    public var type: WebhookType
    public var accountID: String
    public var receiptID: String?
    public var notificationID: String?
    public var status: Status
    public var attempts: Int
    public var lastError: String?
    public var nextAttemptAt: Date?
    public var createdAt: Date
    public var deliveredAt: Date?
    /// The signed body; only ``WebhookLogRepository/webhook(id:)`` reads it.
    public var body: String?

    package init(
        id: String, type: WebhookType, accountID: String, receiptID: String? = nil, notificationID: String? = nil,
        status: Status, attempts: Int, lastError: String? = nil, nextAttemptAt: Date? = nil, createdAt: Date,
        deliveredAt: Date? = nil, body: String? = nil
    ) {
        self.id = id
        self.type = type
        self.accountID = accountID
        self.receiptID = receiptID
        self.notificationID = notificationID
        self.status = status
        self.attempts = attempts
        self.lastError = lastError
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
        self.body = body
    }

    enum CodingKeys: String, CodingKey {
        case id, type, status, attempts, body
        case accountID = "account_id"
        case receiptID = "receipt_id"
        case notificationID = "notification_id"
        case lastError = "last_error"
        case nextAttemptAt = "next_attempt_at"
        case createdAt = "created_at"
        case deliveredAt = "delivered_at"
    }
}

/// A receiver that has been failing: the oldest webhook still waiting after a failed attempt.
public struct FailingReceiver: Hashable, Sendable {
    /// Webhooks waiting after at least one failed attempt, or given up on.
    public var waiting: Int
    /// When the oldest of them was written.
    public var since: Date
    public var lastError: String?

    package init(waiting: Int, since: Date, lastError: String? = nil) {
        self.waiting = waiting
        self.since = since
        self.lastError = lastError
    }

}
