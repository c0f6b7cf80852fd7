import Foundation
import GRDB
import PipelineCore

// MARK: - Intake: accept receipts durably, then hand them to the relay

extension PipelineDatabase {
    /// Stores a batch of receipts in one transaction, so that many HTTP requests share
    /// one commit and one sync. When this returns, every `.created` receipt is durable.
    ///
    /// Each receipt, in order:
    /// - the same idempotency key for the same account as a stored receipt: `.duplicate`
    ///   of it when the request hash matches, `.idempotencyConflict` when it does not;
    /// - else the same payload hash for the same account: `.duplicate` of the stored one;
    /// - else it is stored as `received` (its account created if new): `.created`.
    ///
    /// Receipts earlier in the batch count as stored, so duplicates inside one batch
    /// resolve to the first. A receipt the schema refuses is `.invalid` and does not
    /// fail the batch.
    ///
    /// - Returns: one outcome per receipt, in the same order.
    public func acceptReceipts(_ receipts: [NewReceipt], now: Date) throws -> [AcceptOutcome] {
        guard !receipts.isEmpty else { return [] }
        return try write { db in
            try receipts.map { try accept($0, now: now, db) }
        }
    }

    private func accept(_ new: NewReceipt, now: Date, _ db: Database) throws -> AcceptOutcome {
        if let key = new.idempotencyKey,
            let first = try Receipt.all().filter(accountID: new.accountID, idempotencyKey: key).fetchOne(db)
        {
            return first.requestHash == new.requestHash
                ? .duplicate(first.summary) : .idempotencyConflict(existingID: first.id)
        }
        if let first = try Receipt.all().filter(accountID: new.accountID, payloadHash: new.payloadHash).fetchOne(db) {
            return .duplicate(first.summary)
        }
        let receipt = Receipt(new, now: now)
        do {
            try db.inSavepoint {
                try Account.ensure(db, id: new.accountID, now: now)
                try receipt.insert(db)
                return .commit
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return .invalid(reason: error.message ?? "constraint failed")
        }
        return .created(receipt.summary)
    }

    /// Receipts and Apple notifications committed but not yet confirmed by the broker,
    /// oldest first across both: what the relay publishes (again, after a crash) to the
    /// validate queue. A notification's submission has `signedPayload` set and an empty
    /// `accountID`.
    public func unpublishedReceipts(limit: Int) throws -> [Submission] {
        guard limit > 0 else { return [] }
        return try read { db in
            let receipts = try Receipt.all().unpublished().oldestFirst().limit(limit).fetchAll(db).map(\.submission)
            let notifications = try InboundNotification.all().unpublished().oldestFirst().limit(limit)
                .fetchAll(db).map(\.submission)
            guard !notifications.isEmpty else { return receipts }
            // Merge the two oldest-first lists; a receipt goes first on a tie.
            var merged: [Submission] = []
            merged.reserveCapacity(min(limit, receipts.count + notifications.count))
            var (r, n) = (receipts[...], notifications[...])
            while merged.count < limit, let next = r.first ?? n.first {
                if let receipt = r.first, let notification = n.first {
                    if notification.submittedAt < receipt.submittedAt {
                        merged.append(notification)
                        n.removeFirst()
                    } else {
                        merged.append(receipt)
                        r.removeFirst()
                    }
                } else {
                    merged.append(next)
                    if r.isEmpty { n.removeFirst() } else { r.removeFirst() }
                }
            }
            return merged
        }
    }

    /// Records that the broker confirmed these receipts' or notifications' messages: the
    /// relay will not publish them again, and a `received` one becomes `validating`.
    public func markPublished(_ ids: [String], at date: Date) throws {
        guard !ids.isEmpty else { return }
        try write { db in
            for chunk in ids.chunked(by: 500) {
                try db.execute(
                    literal: """
                        UPDATE receipts
                        SET published_at = \(date),
                            updated_at = \(date),
                            status = CASE status WHEN 'received' THEN 'validating' ELSE status END
                        WHERE published_at IS NULL AND id IN \(chunk)
                        """)
                // Most ids are receipts': look for notifications only when some were not.
                guard db.changesCount < chunk.count else { continue }
                try db.execute(
                    literal: """
                        UPDATE apple_notifications
                        SET published_at = \(date),
                            updated_at = \(date),
                            status = CASE status WHEN 'received' THEN 'validating' ELSE status END
                        WHERE published_at IS NULL AND id IN \(chunk)
                        """)
            }
        }
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements (to stay under SQLite's limit on
    /// statement arguments).
    func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
