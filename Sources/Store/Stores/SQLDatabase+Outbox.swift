import Foundation
import Settlement

// MARK: - Outbox: what the notifier delivers

extension SQLDatabase {
    /// Pending notifications due at `now`, longest-due first (a new notification is due
    /// when written, so first attempts go oldest first).
    public func dueWebhooks(now: Date, limit: Int) async throws -> [OutboxWebhook] {
        try await snapshot { db in try await OutboxStatements.due(now: now, limit: limit, claiming: false, db) }
    }

    /// Like ``dueWebhooks(now:limit:)``, and pushes the next attempt of each returned
    /// notification to `leaseUntil`, so that a poll made while these are in flight (or a
    /// second notifier) does not send them again. If the notifier dies before recording
    /// the outcome, they come due again when the lease ends. On PostgreSQL, notifiers
    /// claiming at the same moment skip each other's rows (`FOR UPDATE SKIP LOCKED`).
    public func claimDueWebhooks(now: Date, limit: Int, leaseUntil: Date) async throws -> [OutboxWebhook] {
        try await transaction { db in
            let due = try await OutboxStatements.due(now: now, limit: limit, claiming: true, db)
            let lease = db.stored(leaseUntil)
            for notification in due {
                try await db.execute(
                    "UPDATE notification_outbox SET next_attempt_at = ? WHERE id = ?", [lease, notification.id])
            }
            return due
        }
    }

    /// The receiver acknowledged the notification: it is never sent again.
    /// - Returns: false if no such notification exists.
    @discardableResult
    public func markDelivered(_ id: String, at date: Date) async throws -> Bool {
        try await recordDeliveries([DeliveryRecord(id: id, outcome: .delivered, at: date)])[0]
    }

    /// A delivery attempt failed with `error`. The notification is tried again at
    /// `nextAttemptAt`, or, when that is nil, given up on (status `failed`).
    /// - Returns: false if no such pending notification exists.
    @discardableResult
    public func recordDeliveryFailure(_ id: String, error: String, nextAttemptAt: Date?, now: Date) async throws -> Bool
    {
        try await recordDeliveries([
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
    public func recordDeliveries(_ records: [DeliveryRecord]) async throws -> [Bool] {
        guard !records.isEmpty else { return [] }
        // A lost 'delivered' only delivers the webhook again (at least once): no sync of its own.
        return try await transaction(priority: .normal, sync: .relaxed) { db in
            var known: [Bool] = []
            for record in records {
                known.append(try await Self.record(record, db))
            }
            return known
        }
    }

    private static func record(_ record: DeliveryRecord, _ db: any SQLSession) async throws -> Bool {
        switch record.outcome {
        case .delivered:
            let changed = try await db.execute(
                """
                UPDATE notification_outbox
                SET status = 'delivered', attempts = attempts + 1, delivered_at = ?, next_attempt_at = NULL,
                    last_error = NULL
                WHERE id = ? AND status <> 'delivered'
                """, [record.at, record.id])
            // Delivered before (a second delivery after a lease ran out) counts as known.
            if changed > 0 { return true }
            return try await db.row("SELECT 1 AS found FROM notification_outbox WHERE id = ?", [record.id]) != nil
        case .failed(let error, let next):
            return try await db.execute(
                """
                UPDATE notification_outbox
                SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?,
                    status = CASE WHEN ? THEN 'failed' ELSE status END
                WHERE id = ? AND status = 'pending'
                """, [error, next, next == nil, record.id]) > 0
        }
    }

    /// Notifications not yet delivered nor given up on, due or not.
    public func pendingWebhookCount() async throws -> Int {
        try await snapshot { db in
            try await db.value("SELECT COUNT(*) AS n FROM notification_outbox WHERE status = 'pending'", as: Int.self)
                ?? 0
        }
    }
}

/// The outbox's reads.
private enum OutboxStatements {
    static func due(now: Date, limit: Int, claiming: Bool, _ db: any SQLSession) async throws -> [OutboxWebhook] {
        let skipLocked = claiming && db.dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
        let rows = try await db.rows(
            """
            SELECT id, type, receipt_id, notification_id, account_id, body, attempts, created_at
            FROM notification_outbox
            WHERE status = 'pending' AND next_attempt_at <= ?
            ORDER BY next_attempt_at, id
            LIMIT ?\(skipLocked)
            """, [now, limit])
        return try rows.map { row in
            let type: String = try row.get("type")
            guard let type = WebhookType(rawValue: type) else {
                throw SQLError.decoding("unknown webhook type \(type)")
            }
            return OutboxWebhook(
                id: try row.get("id"), type: type, receiptID: try row.get("receipt_id"),
                notificationID: try row.get("notification_id"), accountID: try row.get("account_id"),
                body: try row.get("body"), attempts: try row.get("attempts"), createdAt: try row.get("created_at"))
        }
    }
}
