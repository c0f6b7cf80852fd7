import Database
import Foundation
import PipelineCore

/// One group commit's receipts, accepted in a few statements: the stored receipts they may
/// repeat are read in one, the outcomes decided in memory, the accounts and the receipts
/// written in one each.
struct IntakeBatch {
    let receipts: [NewReceipt]
    let stamp: SQLValue
    /// The relay that publishes them (``IntakeRepository/relay``).
    let relay: String?

    init(_ receipts: [NewReceipt], stamp: SQLValue, relay: String?) {
        self.receipts = receipts
        self.stamp = stamp
        self.relay = relay
    }

    /// The columns of a new receipt; `relay` only when a relay publishes it, so that a writer
    /// without one also writes to a database before v19 (the upgrade tests' fixtures).
    static func columns(relay: String?) -> [String] { relay == nil ? columns : columns + ["relay"] }

    static let columns = [
        "id", "account_id", "kind", "payload", "payload_hash", "order_id", "product_id", "status", "attempts",
        "idempotency_key", "request_hash", "created_at", "updated_at", "traceparent",
    ]

    static func values(_ new: NewReceipt, _ stamp: SQLValue, relay: String?) -> [(any SQLConvertible)?] {
        [
            new.id, new.accountID, new.kind.rawValue, new.payload, new.payloadHash, new.orderID, new.productID,
            ReceiptStatus.received.rawValue, 0, new.idempotencyKey, new.requestHash, stamp, stamp, new.traceparent,
        ] + (relay.map { [$0] } ?? [])
    }

    /// What a stored receipt is known by: its account and its payload hash, or its account
    /// and its idempotency key.
    private struct Key: Hashable {
        var accountID: String
        var value: String
    }

    private struct Stored {
        var summary: ReceiptSummary
        var requestHash: String?
    }

    /// The receipts already stored, by payload and by idempotency key.
    private struct Known {
        var byPayload: [Key: Stored] = [:]
        var byIdempotencyKey: [Key: Stored] = [:]

        /// The outcome of `new` against what is stored, or nil if it is new.
        func outcome(of new: NewReceipt) -> AcceptOutcome? {
            if let key = new.idempotencyKey, let first = byIdempotencyKey[Key(accountID: new.accountID, value: key)] {
                return first.requestHash == new.requestHash
                    ? .duplicate(first.summary) : .idempotencyConflict(existingID: first.summary.id)
            }
            return byPayload[Key(accountID: new.accountID, value: new.payloadHash)].map { .duplicate($0.summary) }
        }

        mutating func add(_ stored: Stored, accountID: String, payloadHash: String, idempotencyKey: String?) {
            byPayload[Key(accountID: accountID, value: payloadHash)] = stored
            if let idempotencyKey { byIdempotencyKey[Key(accountID: accountID, value: idempotencyKey)] = stored }
        }
    }

    /// Accepts the batch in the caller's transaction.
    /// - Throws: ``SQLError/constraint(_:)`` when the schema refuses a receipt (the caller
    ///   then takes them one at a time).
    func accept(_ db: any SQLSession) async throws -> [AcceptOutcome] {
        var known = try await stored(db)
        var outcomes: [AcceptOutcome?] = []
        var fresh: [NewReceipt] = []
        for receipt in receipts {
            if let outcome = known.outcome(of: receipt) {
                outcomes.append(outcome)
                continue
            }
            // Later duplicates in the batch resolve to this one.
            known.add(
                Stored(summary: ReceiptSummary(id: receipt.id, status: .received), requestHash: receipt.requestHash),
                accountID: receipt.accountID, payloadHash: receipt.payloadHash, idempotencyKey: receipt.idempotencyKey)
            outcomes.append(nil)
            fresh.append(receipt)
        }
        guard !fresh.isEmpty else { return outcomes.map { $0! } }
        var accounts = Set<String>()
        try await db.insert(
            into: "accounts", columns: ["id", "created_at"],
            rows: fresh.filter { accounts.insert($0.accountID).inserted }.map { [$0.accountID, stamp] },
            suffix: "ON CONFLICT (id) DO NOTHING")
        // Another intake may have stored one of them since the read (PostgreSQL): that one is
        // a duplicate of what it stored.
        let inserted = try await db.insert(
            into: "receipts", columns: Self.columns(relay: relay),
            rows: fresh.map { Self.values($0, stamp, relay: relay) },
            suffix: "ON CONFLICT DO NOTHING RETURNING id")
        let stored = Set(try inserted.map { try $0.get("id", as: String.self) })
        let raced = stored.count < fresh.count ? try await self.stored(db) : known
        var next = fresh.makeIterator()
        return outcomes.map { outcome in
            if let outcome { return outcome }
            let receipt = next.next()!
            if stored.contains(receipt.id) { return .created(ReceiptSummary(id: receipt.id, status: .received)) }
            return raced.outcome(of: receipt) ?? .invalid(reason: "receipt \(receipt.id) was not stored")
        }
    }

    private static let readColumns =
        "r.id, r.account_id, r.status, r.request_hash, r.payload_hash, r.idempotency_key"

    /// The stored receipts this batch's repeat, in one statement. The batch's keys lead the
    /// join: SQLite answers `(a, b) IN (VALUES ...)` by scanning the table, which grows.
    private func stored(_ db: any SQLSession) async throws -> Known {
        // Padded on SQLite, so that the statement comes in few shapes (``SQLRows``); at most
        // 512 receipts a commit, so one statement.
        let byPayload = SQLRows.padded(receipts.map { [$0.accountID, $0.payloadHash] }, dialect: db.dialect)
        let byKey = SQLRows.padded(
            receipts.compactMap { receipt in receipt.idempotencyKey.map { [receipt.accountID, $0] } },
            dialect: db.dialect)
        var sql = """
            SELECT \(Self.readColumns) FROM (VALUES \(SQLRows.placeholders(rows: byPayload.count, width: 2))) AS v
            JOIN receipts r ON r.account_id = v.column1 AND r.payload_hash = v.column2
            """
        var arguments: SQLArguments = byPayload.flatMap { $0 }
        if !byKey.isEmpty {
            sql += """

                UNION ALL
                SELECT \(Self.readColumns) FROM (VALUES \(SQLRows.placeholders(rows: byKey.count, width: 2))) AS v
                JOIN receipts r ON r.account_id = v.column1 AND r.idempotency_key = v.column2
                """
            arguments += byKey.flatMap { $0 }
        }
        var known = Known()
        for row in try await db.rows(sql, arguments) {
            let stored = Stored(
                summary: ReceiptSummary(
                    id: try row.get("id"), status: try IntakeStatements.status(try row.get("status"))),
                requestHash: try row.get("request_hash"))
            known.add(
                stored, accountID: try row.get("account_id"), payloadHash: try row.get("payload_hash"),
                idempotencyKey: try row.get("idempotency_key"))
        }
        return known
    }
}
