import Foundation
import GRDB

// MARK: - Outbox: what the notifier delivers

extension PipelineDatabase {
    /// Pending notifications due at `now`, longest-due first (a new notification is due
    /// when written, so first attempts go oldest first).
    public func dueWebhooks(now: Date, limit: Int) throws -> [OutboxWebhook] {
        try read { db in try OutboxStatements.due(now: now, limit: limit, db) }
    }

    /// Like ``dueWebhooks(now:limit:)``, and pushes the next attempt of each returned
    /// notification to `leaseUntil`, so that a poll made while these are in flight (or a
    /// second notifier) does not send them again. If the notifier dies before recording
    /// the outcome, they come due again when the lease ends.
    public func claimDueWebhooks(now: Date, limit: Int, leaseUntil: Date) throws -> [OutboxWebhook] {
        try write { db in
            let due = try OutboxStatements.due(now: now, limit: limit, db)
            let lease = try db.cachedStatement(sql: "UPDATE notification_outbox SET next_attempt_at = ? WHERE id = ?")
            for notification in due { try lease.execute(arguments: [leaseUntil, notification.id]) }
            return due
        }
    }

    /// The receiver acknowledged the notification: it is never sent again.
    /// - Returns: false if no such notification exists.
    @discardableResult
    public func markDelivered(_ id: String, at date: Date) throws -> Bool {
        try recordDeliveries([DeliveryRecord(id: id, outcome: .delivered, at: date)])[0]
    }

    /// A delivery attempt failed with `error`. The notification is tried again at
    /// `nextAttemptAt`, or, when that is nil, given up on (status `failed`).
    /// - Returns: false if no such pending notification exists.
    @discardableResult
    public func recordDeliveryFailure(_ id: String, error: String, nextAttemptAt: Date?, now: Date) throws -> Bool {
        try recordDeliveries([
            DeliveryRecord(id: id, outcome: .failed(error: error, nextAttemptAt: nextAttemptAt), at: now)
        ])[0]
    }

    /// Records the outcomes of many delivery attempts in one transaction (one commit for
    /// a whole batch of webhooks instead of one each), in order. Each counts one attempt.
    /// A delivered notification is never sent again; a failed one is tried again at its
    /// `nextAttemptAt` or given up on. All or none are recorded: after an error the leases
    /// bring the notifications back, and a webhook may so be sent again, never lost.
    ///
    /// - Returns: per record, in order: for `.delivered`, whether the notification exists;
    ///   for `.failed`, whether it was pending.
    public func recordDeliveries(_ records: [DeliveryRecord]) throws -> [Bool] {
        guard !records.isEmpty else { return [] }
        // A lost 'delivered' only delivers the webhook again (at least once): no sync of its own.
        return try write(sync: .relaxed) { db in
            let delivered = try db.cachedStatement(
                sql: """
                    UPDATE notification_outbox
                    SET status = 'delivered', attempts = attempts + 1, delivered_at = ?, next_attempt_at = NULL,
                        last_error = NULL
                    WHERE id = ? AND status <> 'delivered'
                    """)
            let failed = try db.cachedStatement(
                sql: """
                    UPDATE notification_outbox
                    SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?,
                        status = CASE WHEN ? IS NULL THEN 'failed' ELSE status END
                    WHERE id = ? AND status = 'pending'
                    """)
            let exists = try db.cachedStatement(sql: "SELECT 1 FROM notification_outbox WHERE id = ?")
            return try records.map { record in
                switch record.outcome {
                case .delivered:
                    try delivered.execute(arguments: [record.at, record.id])
                    // Delivered before (a second delivery after a lease ran out) counts as known.
                    return try db.changesCount > 0 || Bool.fetchOne(exists, arguments: [record.id]) != nil
                case .failed(let error, let next):
                    try failed.execute(arguments: [error, next, next, record.id])
                    return db.changesCount > 0
                }
            }
        }
    }

    /// Notifications not yet delivered nor given up on, due or not.
    public func pendingWebhookCount() throws -> Int {
        try read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM notification_outbox WHERE status = 'pending'")) ?? 0
        }
    }
}

/// The outbox's reads, on cached statements.
private enum OutboxStatements {
    static func due(now: Date, limit: Int, _ db: Database) throws -> [OutboxWebhook] {
        let statement = try db.cachedStatement(
            sql: """
                SELECT id, type, receipt_id, notification_id, account_id, body, attempts, created_at
                FROM notification_outbox
                WHERE status = 'pending' AND next_attempt_at <= ?
                ORDER BY next_attempt_at, rowid
                LIMIT ?
                """)
        return try Row.fetchAll(statement, arguments: [now, limit]).map { row in
            OutboxWebhook(
                id: row[0], type: row[1], receiptID: row[2], notificationID: row[3], accountID: row[4], body: row[5],
                attempts: row[6], createdAt: row[7])
        }
    }
}
