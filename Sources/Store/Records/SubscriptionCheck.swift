import Database
import Foundation
import PipelineCore

/// A row of `subscription_checks`: the scheduler's question to Apple about one
/// subscription around one expiry, an hour before it and an hour after.
struct SubscriptionCheck: Codable, Hashable, Sendable, Identifiable {
    enum Phase: String, Codable, Hashable, Sendable {
        case before, after
    }

    enum Status: String, Codable, Hashable, Sendable {
        /// Waiting for its time.
        case scheduled
        /// Published to the validate queue; the verdict has not come back.
        case checking
        /// Apple answered and the answer was applied (see `outcome`).
        case done
        /// Apple's answer was a rejection, or the message died.
        case failed
    }

    var id: String
    var originalTransactionID: String
    var accountID: String
    var entitlement: String
    var expiresAt: Date
    var phase: Phase
    var dueAt: Date
    var status: Status
    /// `renewed`, `expired`, `unchanged`, `revoked`.
    var outcome: String?
    var reason: String?
    var receiptID: String?
    var createdAt: Date
    var updatedAt: Date
    var publishedAt: Date?

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
