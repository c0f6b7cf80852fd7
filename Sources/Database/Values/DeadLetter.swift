import Foundation
import PipelineCore

/// A dead-lettered message as the archive keeps it (a row of `dead_letters`): the original
/// body and headers, why it died, and what an operator did about it.
public struct DeadLetter: Codable, Hashable, Sendable, Identifiable {
    /// Where a letter is in its review.
    public enum Status: String, Codable, Hashable, Sendable, CaseIterable {
        /// Archived, waiting for an operator.
        case waiting
        /// A replay began: its receipt was reopened, the publish may or may not have been
        /// confirmed. Replayable again (a receipt's Apple transactions credit once).
        case replaying
        /// Published back to the work queue, confirmed by the broker.
        case replayed
        /// Given up on by an operator, with a reason.
        case discarded

        /// Waiting and replaying letters still need an operator.
        public var isOpen: Bool { self == .waiting || self == .replaying }
    }

    /// The letter's own id (`dl_` and a digest of the message): a receipt may die, be
    /// replayed and die again, each time a new letter.
    public var id: String
    /// The receipt or Apple notification it carried; nil when the message named none.
    public var receiptID: String?
    /// The receipt's account, filled in when archived; nil when unknown.
    public var accountID: String?
    /// Why it died: the validator's `x-iap-dead-reason`, else RabbitMQ's `x-death` reason and queue.
    public var reason: String
    /// Verify attempts made before it died.
    public var attempts: Int
    /// The last transient error before it died.
    public var lastError: String?
    /// The queue it died in (for example `iap.validate`); nil when unknown.
    public var sourceQueue: String?
    /// The message body, byte for byte.
    public var body: Data
    /// The AMQP headers, as a JSON object.
    public var headers: String
    /// When it died (the validator's `x-iap-dead-at`, else when it was archived).
    public var deadAt: Date
    public var status: Status
    /// The operator who replayed or discarded it.
    public var resolvedBy: String?
    /// Why it was discarded.
    public var resolvedReason: String?
    /// When the replay was confirmed or the discard made.
    public var resolvedAt: Date?
    /// When it was archived.
    public var createdAt: Date

    public init(
        id: String, receiptID: String?, accountID: String?, reason: String, attempts: Int, lastError: String?,
        sourceQueue: String?, body: Data, headers: String, deadAt: Date, status: Status = .waiting,
        resolvedBy: String? = nil, resolvedReason: String? = nil, resolvedAt: Date? = nil, createdAt: Date
    ) {
        self.id = id
        self.receiptID = receiptID
        self.accountID = accountID
        self.reason = reason
        self.attempts = attempts
        self.lastError = lastError
        self.sourceQueue = sourceQueue
        self.body = body
        self.headers = headers
        self.deadAt = deadAt
        self.status = status
        self.resolvedBy = resolvedBy
        self.resolvedReason = resolvedReason
        self.resolvedAt = resolvedAt
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id
        case receiptID = "receipt_id"
        case accountID = "account_id"
        case reason, attempts
        case lastError = "last_error"
        case sourceQueue = "source_queue"
        case body, headers
        case deadAt = "dead_at"
        case status
        case resolvedBy = "resolved_by"
        case resolvedReason = "resolved_reason"
        case resolvedAt = "resolved_at"
        case createdAt = "created_at"
    }
}

/// Dead letters that share a reason, as `iap dlq list` and the console group them.
public struct DeadLetterGroup: Codable, Hashable, Sendable {
    public var reason: String
    public var count: Int
    /// When the group's first letter died.
    public var firstDeadAt: Date
    /// When its latest letter died.
    public var lastDeadAt: Date

    public init(reason: String, count: Int, firstDeadAt: Date, lastDeadAt: Date) {
        self.reason = reason
        self.count = count
        self.firstDeadAt = firstDeadAt
        self.lastDeadAt = lastDeadAt
    }

    enum CodingKeys: String, CodingKey {
        case reason, count
        case firstDeadAt = "first_dead_at"
        case lastDeadAt = "last_dead_at"
    }
}

/// Which dead letters a listing, a group replay or a group discard concerns.
public struct DeadLetterQuery: Hashable, Sendable {
    public var reason: String?
    public var accountID: String?
    /// Only letters that died before this moment (`--older-than`).
    public var deadBefore: Date?
    /// Only letters that died at or after this moment (`--newer-than`).
    public var deadSince: Date?
    public var statuses: Set<DeadLetter.Status>
    /// Only this app's letters (a letter without an account is no app's); every app's when nil.
    public var app: AppScope?

    /// By default, the letters that still need an operator.
    public init(
        reason: String? = nil, accountID: String? = nil, deadBefore: Date? = nil, deadSince: Date? = nil,
        statuses: Set<DeadLetter.Status> = [.waiting, .replaying], app: AppScope? = nil
    ) {
        self.app = app
        self.reason = reason
        self.accountID = accountID
        self.deadBefore = deadBefore
        self.deadSince = deadSince
        self.statuses = statuses
    }
}

/// Why an operator's action on a dead letter was refused; nothing was changed.
public struct DeadLetterError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        case unknownLetter = "unknown_dead_letter"
        case alreadyResolved = "already_resolved"
        case reasonRequired = "reason_required"
        case operatorRequired = "operator_required"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
