import Database
import Foundation
import PipelineCore

// MARK: - Intake: accept receipts durably, then hand them to the relay

/// The intake's store: receipts accepted durably in batches (the group commit), and what
/// the relay publishes and marks published.
///
/// Every method costs a few statements whatever the batch's size: the rows a batch needs
/// are read in one statement, decided in memory, written in one statement per table.
public struct IntakeRepository: Sendable {
    let database: any SQLDatabase
    /// The relay that publishes the receipts this repository stores (``Relay``'s id), written
    /// on each new row; nil: any relay's, claimed by one first (``RelayRepository``).
    let relay: String?

    public init(_ database: any SQLDatabase, relay: String? = nil) {
        self.database = database
        self.relay = relay
    }

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
    public func accept(_ receipts: [NewReceipt], now: Date) async throws -> [AcceptOutcome] {
        guard !receipts.isEmpty else { return [] }
        do {
            // Ahead of other writes waiting in this process: requests are waiting on this commit.
            // Its sync leaves the write lock to the fulfiller and the notifier meanwhile; the
            // answers wait for it (a duplicate's too: it may have read another's unsynced row).
            return try await database.transaction(priority: .urgent, sync: .durableAfterUnlock) { db in
                try await IntakeBatch(receipts, stamp: db.stored(now), relay: relay).accept(db)
            }
        } catch SQLError.constraint {
            // A receipt the schema refuses fails its batch's statement: the batch again, one
            // receipt at a time, so that it alone is refused.
            return try await database.transaction(priority: .urgent, sync: .durableAfterUnlock) { db in
                let stamp = db.stored(now)
                var outcomes: [AcceptOutcome] = []
                for receipt in receipts {
                    outcomes.append(try await Self.accept(receipt, stamp: stamp, relay: relay, db))
                }
                return outcomes
            }
        }
    }

    /// One receipt in a savepoint of its own: a refusal leaves no trace.
    private static func accept(
        _ new: NewReceipt, stamp: SQLValue, relay: String?, _ db: any SQLSession
    ) async throws -> AcceptOutcome {
        if let key = new.idempotencyKey,
            let first = try await db.row(IntakeStatements.byIdempotencyKey, [new.accountID, key])
        {
            let summary = try ReceiptSummary(id: first.get("id"), status: IntakeStatements.status(first.get("status")))
            return try first.get("request_hash") == new.requestHash
                ? .duplicate(summary) : .idempotencyConflict(existingID: summary.id)
        }
        if let first = try await db.row(IntakeStatements.byPayloadHash, [new.accountID, new.payloadHash]) {
            return .duplicate(
                try ReceiptSummary(id: first.get("id"), status: IntakeStatements.status(first.get("status"))))
        }
        do {
            try await db.savepoint {
                try await db.execute(IntakeStatements.ensureAccount, [new.accountID, stamp])
                try await db.insert(
                    into: "receipts", columns: IntakeBatch.columns(relay: relay),
                    rows: [IntakeBatch.values(new, stamp, relay: relay)])
            }
        } catch SQLError.constraint(let message) {
            return .invalid(reason: message)
        }
        return .created(ReceiptSummary(id: new.id, status: .received))
    }

    /// Receipts and stores' notifications committed but not yet confirmed by the broker,
    /// oldest first across both: what the relay publishes (again, after a crash) to the
    /// validate queue. A notification's submission has its payload as evidence, an empty
    /// `accountID` and the app that proved it. Only this repository's ``relay``'s when it has
    /// one (another relay's rows are its own to publish); every relay's when it has none.
    public func unpublished(limit: Int) async throws -> [Submission] {
        guard limit > 0 else { return [] }
        let (receiptsSQL, notificationsSQL, arguments): (String, String, SQLArguments) =
            if let relay {
                (
                    IntakeStatements.relaysUnpublishedReceipts, IntakeStatements.relaysUnpublishedNotifications,
                    [relay, limit]
                )
            } else {
                (IntakeStatements.unpublishedReceipts, IntakeStatements.unpublishedNotifications, [limit])
            }
        return try await database.snapshot { db in
            let receipts = try await db.rows(receiptsSQL, arguments).map { row in
                let kind = ReceiptKind(rawValue: try row.get("kind"))
                var submission = Submission(
                    id: try row.get("id"), accountID: try row.get("account_id"),
                    evidence: ReceiptKind.evidence(kind, try row.get("payload")), orderID: try row.get("order_id"),
                    productID: try row.get("product_id"), submittedAt: try row.get("created_at"))
                submission.traceparent = try row.get("traceparent")
                return submission
            }
            let notifications = try await db.rows(notificationsSQL, arguments).map { row in
                var submission = Submission(
                    id: try row.get("id"), accountID: "",
                    evidence: NotificationRow.evidence(store: try row.get("store"), try row.get("payload")),
                    submittedAt: try row.get("created_at"))
                submission.app = try row.get("app")
                return submission
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
    public func markPublished(_ ids: [String], at date: Date) async throws {
        guard !ids.isEmpty else { return }
        // A lost mark only publishes the receipt again: no sync of its own.
        try await database.transaction(priority: .normal, sync: .relaxed) { db in
            let stamp = db.stored(date)
            // The fulfiller may be settling some of them: rows are locked as it locks them.
            try await db.lockInKeyOrder("receipts", key: "id", ids)
            // Most ids are receipts': notifications are looked for among the rest.
            let marked = try await db.rows(IntakeStatements.markReceiptsPublished, in: ids, before: [stamp, stamp])
            let receipts = Set(try marked.map { try $0.get("id", as: String.self) })
            let others = ids.filter { !receipts.contains($0) }
            if !others.isEmpty {
                try await db.lockInKeyOrder("store_notifications", key: "id", others)
                _ = try await db.rows(IntakeStatements.markNotificationsPublished, in: others, before: [stamp, stamp])
            }
        }
    }
}

/// The intake's statements. Each is compiled once per connection and kept in its
/// statement cache: building SQL through a query interface and authorizing it again for
/// every receipt was a tenth of the intake's CPU.
enum IntakeStatements {
    static let byIdempotencyKey =
        "SELECT id, status, request_hash FROM receipts WHERE account_id = ? AND idempotency_key = ?"
    static let byPayloadHash = "SELECT id, status FROM receipts WHERE account_id = ? AND payload_hash = ?"
    // Not `INSERT OR IGNORE`, which would also swallow a CHECK failure (an over-long id).
    static let ensureAccount = "INSERT INTO accounts (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING"

    /// A stored status (the schema's CHECK admits only known ones).
    static func status(_ raw: String) throws -> ReceiptStatus {
        guard let status = ReceiptStatus(rawValue: raw) else {
            throw SQLError.decoding("unknown receipt status \(raw)")
        }
        return status
    }

    static let unpublishedReceipts = """
        SELECT id, account_id, kind, payload, order_id, product_id, created_at, traceparent FROM receipts
        WHERE published_at IS NULL AND status NOT IN ('credited', 'rejected', 'dead')
        ORDER BY created_at, id LIMIT ?
        """
    static let unpublishedNotifications = """
        SELECT id, app, payload, store, created_at FROM store_notifications
        WHERE published_at IS NULL AND status NOT IN ('applied', 'rejected', 'dead')
        ORDER BY created_at, id LIMIT ?
        """
    static let relaysUnpublishedReceipts = """
        SELECT id, account_id, kind, payload, order_id, product_id, created_at, traceparent FROM receipts
        WHERE published_at IS NULL AND status NOT IN ('credited', 'rejected', 'dead') AND relay = ?
        ORDER BY created_at, id LIMIT ?
        """
    static let relaysUnpublishedNotifications = """
        SELECT id, app, payload, store, created_at FROM store_notifications
        WHERE published_at IS NULL AND status NOT IN ('applied', 'rejected', 'dead') AND relay = ?
        ORDER BY created_at, id LIMIT ?
        """
    /// `IN (?)` takes the ids (``SQLSession/rows(_:in:before:after:)``), after the stamps.
    static let markReceiptsPublished = """
        UPDATE receipts
        SET published_at = ?, updated_at = ?,
            status = CASE status WHEN 'received' THEN 'validating' ELSE status END
        WHERE id IN (?) AND published_at IS NULL
        RETURNING id
        """
    static let markNotificationsPublished = """
        UPDATE store_notifications
        SET published_at = ?, updated_at = ?,
            status = CASE status WHEN 'received' THEN 'validating' ELSE status END
        WHERE id IN (?) AND published_at IS NULL
        RETURNING id
        """
}
