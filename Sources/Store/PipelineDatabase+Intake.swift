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
        // Ahead of other writes waiting in this process: requests are waiting on this commit.
        return try write(priority: .urgent) { db in
            var statements = try IntakeStatements(db)
            return try receipts.map { receipt in
                let outcome = try accept(receipt, now: now, statements, db)
                // GRDB drops a statement that failed from its cache: take fresh ones.
                if case .invalid = outcome { statements = try IntakeStatements(db) }
                return outcome
            }
        }
    }

    private func accept(_ new: NewReceipt, now: Date, _ sql: IntakeStatements, _ db: Database) throws -> AcceptOutcome {
        if let key = new.idempotencyKey,
            let first = try Row.fetchOne(sql.byIdempotencyKey, arguments: [new.accountID, key])
        {
            let summary = try ReceiptSummary(id: first[0], status: IntakeStatements.status(first[1]))
            return first[2] == new.requestHash ? .duplicate(summary) : .idempotencyConflict(existingID: summary.id)
        }
        if let first = try Row.fetchOne(sql.byPayloadHash, arguments: [new.accountID, new.payloadHash]) {
            return .duplicate(try ReceiptSummary(id: first[0], status: IntakeStatements.status(first[1])))
        }
        // A statement that fails a constraint undoes only itself; an account created for a
        // receipt the schema then refuses is removed, so a refusal leaves no trace.
        var createdAccount = false
        do {
            try sql.ensureAccount.execute(arguments: [new.accountID, now])
            createdAccount = db.changesCount > 0
            try sql.insertReceipt.execute(
                arguments: [
                    new.id, new.accountID, new.kind.rawValue, new.payload, new.payloadHash, new.orderID,
                    new.productID, ReceiptStatus.received.rawValue, new.idempotencyKey, new.requestHash, now, now,
                ])
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            if createdAccount { try sql.deleteAccount.execute(arguments: [new.accountID]) }
            return .invalid(reason: error.message ?? "constraint failed")
        }
        return .created(ReceiptSummary(id: new.id, status: .received))
    }

    /// Receipts and Apple notifications committed but not yet confirmed by the broker,
    /// oldest first across both: what the relay publishes (again, after a crash) to the
    /// validate queue. A notification's submission has `signedPayload` set and an empty
    /// `accountID`.
    public func unpublishedReceipts(limit: Int) throws -> [Submission] {
        guard limit > 0 else { return [] }
        return try read { db in
            let receipts = try Row.fetchAll(
                db.cachedStatement(sql: IntakeStatements.unpublishedReceipts), arguments: [limit]
            ).map { row in
                let kind = ReceiptKind(rawValue: row[2])
                let payload: String = row[3]
                return Submission(
                    id: row[0], accountID: row[1], evidence: ReceiptKind.evidence(kind, payload), orderID: row[4],
                    productID: row[5], submittedAt: row[6])
            }
            let notifications = try Row.fetchAll(
                db.cachedStatement(sql: IntakeStatements.unpublishedNotifications), arguments: [limit]
            ).map { row in
                Submission(
                    id: row[0], accountID: "", evidence: .notification(signedPayload: row[1]), submittedAt: row[2])
            }
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
        // A lost mark only publishes the receipt again: no sync of its own.
        try write(sync: .relaxed) { db in
            let receipts = try db.cachedStatement(sql: IntakeStatements.markReceiptPublished)
            let notifications = try db.cachedStatement(sql: IntakeStatements.markNotificationPublished)
            for id in ids {
                try receipts.execute(arguments: [date, date, id])
                // Most ids are receipts': look for a notification only when no receipt changed.
                if db.changesCount == 0 { try notifications.execute(arguments: [date, date, id]) }
            }
        }
    }
}

/// The intake's statements, compiled once per connection and kept in its statement cache:
/// building SQL through the query interface and authorizing it again for every receipt
/// was a tenth of the intake's CPU.
private struct IntakeStatements {
    let byIdempotencyKey: Statement
    let byPayloadHash: Statement
    let ensureAccount: Statement
    let deleteAccount: Statement
    let insertReceipt: Statement

    init(_ db: Database) throws {
        byIdempotencyKey = try db.cachedStatement(
            sql: "SELECT id, status, request_hash FROM receipts WHERE account_id = ? AND idempotency_key = ?")
        byPayloadHash = try db.cachedStatement(
            sql: "SELECT id, status FROM receipts WHERE account_id = ? AND payload_hash = ?")
        // Not `INSERT OR IGNORE`, which would also swallow a CHECK failure (an over-long id).
        ensureAccount = try db.cachedStatement(
            sql: "INSERT INTO accounts (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING")
        deleteAccount = try db.cachedStatement(sql: "DELETE FROM accounts WHERE id = ?")
        insertReceipt = try db.cachedStatement(
            sql: """
                INSERT INTO receipts (id, account_id, kind, payload, payload_hash, order_id, product_id, status,
                    attempts, idempotency_key, request_hash, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)
                """)
    }

    /// A stored status (the schema's CHECK admits only known ones).
    static func status(_ raw: String) throws -> ReceiptStatus {
        guard let status = ReceiptStatus(rawValue: raw) else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "unknown receipt status \(raw)")
        }
        return status
    }

    static let unpublishedReceipts = """
        SELECT id, account_id, kind, payload, order_id, product_id, created_at FROM receipts
        WHERE published_at IS NULL AND status NOT IN ('credited', 'rejected', 'dead')
        ORDER BY created_at, rowid LIMIT ?
        """
    static let unpublishedNotifications = """
        SELECT id, payload, created_at FROM apple_notifications
        WHERE published_at IS NULL AND status NOT IN ('applied', 'rejected', 'dead')
        ORDER BY created_at, rowid LIMIT ?
        """
    static let markReceiptPublished = """
        UPDATE receipts
        SET published_at = ?, updated_at = ?,
            status = CASE status WHEN 'received' THEN 'validating' ELSE status END
        WHERE id = ? AND published_at IS NULL
        """
    static let markNotificationPublished = """
        UPDATE apple_notifications
        SET published_at = ?, updated_at = ?,
            status = CASE status WHEN 'received' THEN 'validating' ELSE status END
        WHERE id = ? AND published_at IS NULL
        """
}
