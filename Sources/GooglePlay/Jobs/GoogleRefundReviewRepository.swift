import Database
import Foundation
import PipelineCore
import Repositories
import Settlement

// MARK: - Google's chargeback reviews: what it asked, what the ledger knows, what we answered

/// What answering Google's pending refund reviews (RTDN `pendingRefundReviewNotification`)
/// reads and records.
///
/// A review is a Google notice the fulfiller applied (type `PENDING_REFUND_REVIEW`, recorded
/// against the account its order credited); its answer is a row of `google_refund_reviews`.
/// Every method is one transaction of the pipeline's database, SQLite or PostgreSQL. The
/// answer itself is ``RefundReviewAnswer``'s (module `Settlement`).
public struct GoogleRefundReviewRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// One review Google asked for.
    public struct Review: Hashable, Sendable {
        public var notificationID: String
        public var packageName: String
        public var orderID: String
        public var pendingRefundToken: String
        /// The account the order credited, if any.
        public var accountID: String?
        public var receivedAt: Date
        /// Attempts at an answer so far.
        public var attempts: Int
    }

    /// What we told Google about one review, or why not yet.
    public struct Answer: Hashable, Sendable {
        public enum Status: String, Hashable, Sendable {
            /// Google accepted it.
            case sent
            /// Google could not be reached or asked to wait: tried again from `nextAttemptAt`.
            case failed
            /// Google refused it for good (a `4xx`): an operator's case.
            case refused
        }

        public var notificationID: String
        public var orderID: String
        public var accountID: String?
        public var status: Status
        public var reason: String?
        /// The JSON sent to Google.
        public var body: String?
        public var googleStatus: Int?
        /// Attempts so far, this one included.
        public var attempts: Int
        public var nextAttemptAt: Date?

        public init(
            notificationID: String, orderID: String, accountID: String?, status: Status, reason: String? = nil,
            body: String? = nil, googleStatus: Int? = nil, attempts: Int = 1, nextAttemptAt: Date? = nil
        ) {
            self.notificationID = notificationID
            self.orderID = orderID
            self.accountID = accountID
            self.status = status
            self.reason = reason
            self.body = body
            self.googleStatus = googleStatus
            self.attempts = attempts
            self.nextAttemptAt = nextAttemptAt
        }
    }

    /// Reviews received since `since` and applied, still to answer at `now`: none sent or
    /// refused, and a failed one only once its next attempt is due, of `app`'s accounts.
    /// Oldest first.
    public func pending(since: Date, now: Date, limit: Int, app: AppScope = .single) async throws -> [Review] {
        let scope = app.jobCondition(appColumn: "n.app")
        return try await database.snapshot { db in
            try await db.rows(
                """
                SELECT n.id, n.payload, n.account_id, n.created_at, a.attempts
                FROM store_notifications n LEFT JOIN google_refund_reviews a ON a.notification_id = n.id
                WHERE n.type = 'PENDING_REFUND_REVIEW' AND n.store = 'google' AND n.status = 'applied'
                    AND n.notification_uuid IS NOT NULL AND n.created_at >= ? AND \(scope.sql)
                    AND (a.notification_id IS NULL OR (a.status = 'failed' AND a.next_attempt_at <= ?))
                ORDER BY n.created_at, n.id LIMIT ?
                """, ([since] as SQLArguments) + scope.arguments + [now, limit]
            ).compactMap { row -> Review? in
                guard let notice = GoogleNotice(canonicalJSON: try row.get("payload")), let order = notice.orderID,
                    let token = notice.pendingRefundToken
                else { return nil }
                return Review(
                    notificationID: try row.get("id"), packageName: notice.packageName, orderID: order,
                    pendingRefundToken: token, accountID: try row.get("account_id"),
                    receivedAt: try row.get("created_at"), attempts: try row.get("attempts", as: Int?.self) ?? 0)
            }
        }
    }

    /// What the ledger knows about the order `review` names: Apple's consumption facts, read
    /// the same way.
    public func facts(for review: Review) async throws -> ConsumptionAnswer.Facts {
        try await ConsumptionRepository(database).facts(
            for: ConsumptionRequest(
                notificationID: review.notificationID, notificationUUID: review.notificationID,
                transactionID: review.orderID, originalTransactionID: nil, productID: nil, accountID: review.accountID,
                environment: nil, signedDate: nil, receivedAt: review.receivedAt))
    }

    /// Records an answer (or an attempt at one), replacing the previous attempt's.
    public func record(_ answer: Answer, now: Date) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO google_refund_reviews (
                    notification_id, order_id, account_id, status, reason, body, google_status, attempts,
                    next_attempt_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (notification_id) DO UPDATE SET status = excluded.status, reason = excluded.reason,
                    body = excluded.body, google_status = excluded.google_status, attempts = excluded.attempts,
                    next_attempt_at = excluded.next_attempt_at, updated_at = excluded.updated_at
                """,
                [
                    answer.notificationID, answer.orderID, answer.accountID, answer.status.rawValue,
                    answer.reason.map { String($0.prefix(500)) }, answer.body, answer.googleStatus, answer.attempts,
                    answer.nextAttemptAt, now,
                ])
        }
    }

    /// The answer recorded for a review notification, if any.
    public func answer(notificationID: String) async throws -> Answer? {
        try await database.snapshot { db in
            guard
                let row = try await db.row(
                    """
                    SELECT notification_id, order_id, account_id, status, reason, body, google_status, attempts,
                        next_attempt_at
                    FROM google_refund_reviews WHERE notification_id = ?
                    """, [notificationID])
            else { return nil }
            return Answer(
                notificationID: try row.get("notification_id"), orderID: try row.get("order_id"),
                accountID: try row.get("account_id"),
                status: Answer.Status(rawValue: try row.get("status")) ?? .failed, reason: try row.get("reason"),
                body: try row.get("body"), googleStatus: try row.get("google_status"),
                attempts: try row.get("attempts"), nextAttemptAt: try row.get("next_attempt_at"))
        }
    }
}
