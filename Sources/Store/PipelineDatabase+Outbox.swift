import Foundation
import GRDB

// MARK: - Outbox: what the notifier delivers

extension PipelineDatabase {
    /// Pending notifications due at `now`, longest-due first (a new notification is due
    /// when written, so first attempts go oldest first).
    public func dueNotifications(now: Date, limit: Int) throws -> [OutboxNotification] {
        try read { db in
            try OutboxEntry.all().due(at: now).limit(limit).fetchAll(db).map(\.notification)
        }
    }

    /// Like ``dueNotifications(now:limit:)``, and pushes the next attempt of each returned
    /// notification to `leaseUntil`, so that a poll made while these are in flight (or a
    /// second notifier) does not send them again. If the notifier dies before recording
    /// the outcome, they come due again when the lease ends.
    public func claimDueNotifications(now: Date, limit: Int, leaseUntil: Date) throws -> [OutboxNotification] {
        try write { db in
            let due = try OutboxEntry.all().due(at: now).limit(limit).fetchAll(db)
            try OutboxEntry.filter(ids: due.map(\.id))
                .updateAll(db) { $0.nextAttemptAt.set(to: leaseUntil) }
            return due.map(\.notification)
        }
    }

    /// The receiver acknowledged the notification: it is never sent again.
    /// - Returns: false if no such notification exists.
    @discardableResult
    public func markDelivered(_ id: String, at date: Date) throws -> Bool {
        try write { db in
            guard var entry = try OutboxEntry.fetchOne(db, id: id) else { return false }
            guard entry.status != .delivered else { return true }
            entry.status = .delivered
            entry.attempts += 1
            entry.deliveredAt = date
            entry.nextAttemptAt = nil
            entry.lastError = nil
            try entry.update(db)
            return true
        }
    }

    /// A delivery attempt failed with `error`. The notification is tried again at
    /// `nextAttemptAt`, or, when that is nil, given up on (status `failed`).
    /// - Returns: false if no such pending notification exists.
    @discardableResult
    public func recordDeliveryFailure(_ id: String, error: String, nextAttemptAt: Date?, now: Date) throws -> Bool {
        try write { db in
            guard var entry = try OutboxEntry.fetchOne(db, id: id), entry.status == .pending else { return false }
            entry.attempts += 1
            entry.lastError = error
            if let nextAttemptAt {
                entry.nextAttemptAt = nextAttemptAt
            } else {
                entry.status = .failed
                entry.nextAttemptAt = nil
            }
            try entry.update(db)
            return true
        }
    }

    /// Notifications not yet delivered nor given up on, due or not.
    public func pendingNotificationCount() throws -> Int {
        try read { db in
            try OutboxEntry.all().pending().fetchCount(db)
        }
    }
}
