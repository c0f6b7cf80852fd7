import Database
import Foundation
import Settlement

// MARK: - Outbox: what the notifier delivers

/// The webhook outbox as the notifier sees it: claim what is due, record what came of each
/// delivery. Batches cost a few statements whatever their size.
public struct OutboxRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// Pending notifications due at `now`, longest-due first (a new notification is due
    /// when written, so first attempts go oldest first).
    public func dueWebhooks(now: Date, limit: Int) async throws -> [OutboxWebhook] {
        try await database.snapshot { db in try await OutboxStatements.due(now: now, limit: limit, claiming: false, db)
        }
    }

    /// Like ``dueWebhooks(now:limit:)``, and pushes the next attempt of each returned
    /// notification to `leaseUntil`, so that a poll made while these are in flight (or a
    /// second notifier) does not send them again. If the notifier dies before recording
    /// the outcome, they come due again when the lease ends. On PostgreSQL, notifiers
    /// claiming at the same moment skip each other's rows (`FOR UPDATE SKIP LOCKED`).
    public func claimDueWebhooks(now: Date, limit: Int, leaseUntil: Date) async throws -> [OutboxWebhook] {
        // A lease lost to a power cut only lets the webhooks be sent again (at least once, as
        // a lost 'delivered' does): no sync of its own, one fewer for every look that finds work.
        try await database.transaction(priority: .normal, sync: .relaxed) { db in
            let due = try await OutboxStatements.due(now: now, limit: limit, claiming: true, db)
            guard !due.isEmpty else { return due }
            _ = try await db.rows(
                "UPDATE notification_outbox SET next_attempt_at = ? WHERE id IN (?) RETURNING id",
                in: due.map(\.id), before: [db.stored(leaseUntil)])
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
        return try await database.transaction(priority: .normal, sync: .relaxed) { db in
            try await Self.record(records, db)
        }
    }

    /// The delivered in a statement (or a few, ``SQLRows``), the failed in another: each
    /// counts one attempt.
    private static func record(_ records: [DeliveryRecord], _ db: any SQLSession) async throws -> [Bool] {
        var delivered: [[(any SQLConvertible)?]] = []
        var failed: [[(any SQLConvertible)?]] = []
        for record in records {
            switch record.outcome {
            case .delivered: delivered.append([record.id, record.at])
            case .failed(let error, let next): failed.append([record.id, error, next, next == nil])
            }
        }
        var known = Set<String>()
        for chunk in SQLRows.chunks(delivered, width: 2, dialect: db.dialect) {
            for row in try await db.rows(
                """
                UPDATE notification_outbox
                SET status = 'delivered', attempts = attempts + 1,
                    delivered_at = \(db.dialect.cast("v.column2", to: .timestamp)), next_attempt_at = NULL,
                    last_error = NULL
                FROM (VALUES \(SQLRows.placeholders(rows: chunk.count, width: 2))) AS v
                WHERE notification_outbox.id = v.column1 AND notification_outbox.status <> 'delivered'
                RETURNING notification_outbox.id
                """, chunk.flatMap { $0 })
            {
                known.insert(try row.get("id"))
            }
        }
        // Delivered before (a second delivery after a lease ran out) counts as known.
        let rest = records.filter { if case .delivered = $0.outcome { !known.contains($0.id) } else { false } }
            .map(\.id)
        for row in try await db.rows("SELECT id FROM notification_outbox WHERE id IN (?)", in: rest) {
            known.insert(try row.get("id"))
        }
        var pending = Set<String>()
        for chunk in SQLRows.chunks(failed, width: 4, dialect: db.dialect) {
            for row in try await db.rows(
                """
                UPDATE notification_outbox
                SET attempts = attempts + 1, last_error = v.column2,
                    next_attempt_at = \(db.dialect.cast("v.column3", to: .timestamp)),
                    status = CASE WHEN \(db.dialect.cast("v.column4", to: .boolean)) THEN 'failed' ELSE status END
                FROM (VALUES \(SQLRows.placeholders(rows: chunk.count, width: 4))) AS v
                WHERE notification_outbox.id = v.column1 AND notification_outbox.status = 'pending'
                RETURNING notification_outbox.id
                """, chunk.flatMap { $0 })
            {
                pending.insert(try row.get("id"))
            }
        }
        return records.map { record in
            switch record.outcome {
            case .delivered: known.contains(record.id)
            case .failed: pending.contains(record.id)
            }
        }
    }

    /// Notifications not yet delivered nor given up on, due or not.
    public func pendingWebhookCount() async throws -> Int {
        try await database.snapshot { db in
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
            SELECT id, type, receipt_id, notification_id, account_id, body, attempts, created_at, traceparent
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
                body: try row.get("body"), attempts: try row.get("attempts"), createdAt: try row.get("created_at"),
                traceparent: try row.get("traceparent"))
        }
    }
}
