import Foundation
import PipelineCore

/// A row of `subscription_checks`: the scheduler's question to Apple about one
/// subscription around one expiry, an hour before it and an hour after.
package struct SubscriptionCheck: Codable, Hashable, Sendable, Identifiable {
    package enum Phase: String, Codable, Hashable, Sendable {
        case before, after
    }

    package enum Status: String, Codable, Hashable, Sendable {
        /// Waiting for its time.
        case scheduled
        /// Published to the validate queue; the verdict has not come back.
        case checking
        /// Apple answered and the answer was applied (see `outcome`).
        case done
        /// Apple's answer was a rejection, or the message died.
        case failed
    }

    package var id: String
    package var originalTransactionID: String
    package var accountID: String
    package var entitlement: String
    package var expiresAt: Date
    package var phase: Phase
    package var dueAt: Date
    package var status: Status
    /// `renewed`, `expired`, `unchanged`, `revoked`.
    package var outcome: String?
    package var reason: String?
    package var receiptID: String?
    package var createdAt: Date
    package var updatedAt: Date
    package var publishedAt: Date?

    package init(
        id: String, originalTransactionID: String, accountID: String, entitlement: String, expiresAt: Date,
        phase: Phase, dueAt: Date, status: Status, outcome: String? = nil, reason: String? = nil,
        receiptID: String? = nil, createdAt: Date, updatedAt: Date, publishedAt: Date? = nil
    ) {
        self.id = id
        self.originalTransactionID = originalTransactionID
        self.accountID = accountID
        self.entitlement = entitlement
        self.expiresAt = expiresAt
        self.phase = phase
        self.dueAt = dueAt
        self.status = status
        self.outcome = outcome
        self.reason = reason
        self.receiptID = receiptID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.publishedAt = publishedAt
    }

    enum CodingKeys: String, CodingKey {
        case id
        case originalTransactionID = "original_transaction_id"
        case accountID = "account_id"
        case entitlement
        case expiresAt = "expires_at"
        case phase
        case dueAt = "due_at"
        case status, outcome, reason
        case receiptID = "receipt_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case publishedAt = "published_at"
    }
}

/// A subscription check as the scheduler sees it: what to publish, and what became of it.
public struct SubscriptionCheckDetails: Codable, Hashable, Sendable {
    public var checkID: String
    public var originalTransactionID: String
    public var accountID: String
    public var entitlement: String
    public var expiresAt: Date
    public var phase: String
    public var dueAt: Date
    public var status: String
    public var outcome: String?
    public var reason: String?
    /// The validate-queue message that asks Apple.
    public var submission: PipelineCore.Submission

    package init(
        checkID: String, originalTransactionID: String, accountID: String, entitlement: String, expiresAt: Date,
        phase: String, dueAt: Date, status: String, outcome: String? = nil, reason: String? = nil,
        submission: PipelineCore.Submission
    ) {
        self.checkID = checkID
        self.originalTransactionID = originalTransactionID
        self.accountID = accountID
        self.entitlement = entitlement
        self.expiresAt = expiresAt
        self.phase = phase
        self.dueAt = dueAt
        self.status = status
        self.outcome = outcome
        self.reason = reason
        self.submission = submission
    }

    enum CodingKeys: String, CodingKey {
        case checkID = "check_id"
        case originalTransactionID = "original_transaction_id"
        case accountID = "account_id"
        case entitlement
        case expiresAt = "expires_at"
        case phase
        case dueAt = "due_at"
        case status, outcome, reason, submission
    }
}
