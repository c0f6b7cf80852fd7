import Database
import Foundation
import SettlementWriter

// MARK: - An account's story: what support reads when a player says "I paid and got nothing"

/// Finds accounts by any id a player or a backend quotes, and tells one account's story
/// (``AccountStory``): every order, receipt, store notification (Apple's or Google's), ledger entry, binding
/// conflict, manual adjustment, dead letter and expiry, in one timeline.
///
/// A small reading store over either backend; each method is one snapshot.
public struct AccountHistoryRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// The accounts an id points to: an account id, a receipt or notification id, an Apple
    /// transaction or original transaction id, an order id, or an appAccountToken. More
    /// than one when a purchase was claimed by one account and credited to another.
    public func accounts(matching text: String) async throws -> [String] {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard (1...256).contains(text.count) else { return [] }
        return try await database.snapshot { db in
            try await db.rows(
                """
                SELECT id AS account_id FROM accounts WHERE id = ?
                UNION SELECT account_id FROM receipts WHERE id = ?
                UNION SELECT account_id FROM store_notifications WHERE id = ? AND account_id IS NOT NULL
                UNION SELECT account_id FROM store_transactions
                    WHERE (transaction_id = ? OR original_transaction_id = ?) AND account_id IS NOT NULL
                UNION SELECT r.account_id FROM receipt_transactions t JOIN receipts r ON r.id = t.receipt_id
                    WHERE t.transaction_id = ?
                UNION SELECT claimant_account_id FROM binding_conflicts WHERE transaction_id = ?
                UNION SELECT account_id FROM orders WHERE id = ?
                UNION SELECT account_id FROM app_account_tokens WHERE token = ?
                ORDER BY account_id LIMIT 50
                """, Array(repeating: text, count: 8) + [text.lowercased()]
            ).map { try $0.get("account_id") }
        }
    }

    /// The account's story, or nil if there is no such account. `limit` bounds each kind
    /// of event (the newest are kept).
    public func story(of accountID: String, now: Date, limit: Int = 500) async throws -> AccountStory? {
        guard let account = try await LedgerRepository(database).account(id: accountID, ledgerLimit: limit) else {
            return nil
        }
        let webhooks = try await WebhookLogRepository(database).list(.init(accountID: accountID, limit: limit))
        let events = try await database.snapshot { db in
            let arguments: SQLArguments = [accountID, limit]
            return try await Self.orders(db, arguments) + Self.receipts(db, arguments)
                + Self.notifications(db, arguments)
                + Self.ledger(db, arguments) + Self.conflicts(db, accountID, limit)
                + Self.adjustments(db, arguments) + Self.deadLetters(db, arguments)
                + Self.expiries(db, [accountID, now, limit])
        }
        return AccountStory(account: account, timeline: AccountEvent.inOrder(events), webhooks: webhooks)
    }

    private static func orders(_ db: any SQLSession, _ arguments: SQLArguments) async throws -> [AccountEvent] {
        try await db.rows(
            """
            SELECT id, product_id, status, created_at, closed_at, close_reason FROM orders
            WHERE account_id = ? ORDER BY created_at DESC LIMIT ?
            """, arguments
        ).flatMap { row -> [AccountEvent] in
            let id: String = try row.get("id")
            let product: String = try row.get("product_id")
            var events = [
                AccountEvent(
                    at: try row.get("created_at"), kind: .order, summary: "order opened for \(product)",
                    reference: .init(.order, id))
            ]
            if let closed = try row.get("closed_at", as: Date?.self) {
                let status: String = try row.get("status")
                let reason = try row.get("close_reason", as: String?.self).map { " (\($0))" } ?? ""
                events.append(
                    AccountEvent(
                        at: closed, kind: .order, summary: "order \(status)\(reason)", reference: .init(.order, id)))
            }
            return events
        }
    }

    private static func receipts(_ db: any SQLSession, _ arguments: SQLArguments) async throws -> [AccountEvent] {
        try await db.rows(
            """
            SELECT id, status, reason, attempts, product_id, created_at, updated_at FROM receipts
            WHERE account_id = ? ORDER BY created_at DESC LIMIT ?
            """, arguments
        ).flatMap { row -> [AccountEvent] in
            let id: String = try row.get("id")
            let product = try row.get("product_id", as: String?.self).map { " for \($0)" } ?? ""
            var events = [
                AccountEvent(
                    at: try row.get("created_at"), kind: .receipt, summary: "receipt received\(product)",
                    reference: .init(.receipt, id))
            ]
            let status: String = try row.get("status")
            if status != "received" {
                let attempts: Int = try row.get("attempts")
                let reason = try row.get("reason", as: String?.self).map { ": \($0)" } ?? ""
                events.append(
                    AccountEvent(
                        at: try row.get("updated_at"), kind: .receipt,
                        summary: "receipt \(status) after \(attempts) attempt\(attempts == 1 ? "" : "s")\(reason)",
                        reference: .init(.receipt, id)))
            }
            return events
        }
    }

    private static func notifications(_ db: any SQLSession, _ arguments: SQLArguments) async throws -> [AccountEvent] {
        try await db.rows(
            """
            SELECT id, store, type, subtype, status, reason, transaction_id, created_at FROM store_notifications
            WHERE account_id = ? ORDER BY created_at DESC LIMIT ?
            """, arguments
        ).map { row in
            let type = try row.get("type", as: String?.self) ?? "notification"
            let subtype = try row.get("subtype", as: String?.self).map { "/\($0)" } ?? ""
            let status: String = try row.get("status")
            let reason = try row.get("reason", as: String?.self).map { " (\($0))" } ?? ""
            let transaction = try row.get("transaction_id", as: String?.self).map { " for transaction \($0)" } ?? ""
            let store = try row.get("store", as: String.self) == "google" ? "Google" : "Apple"
            return AccountEvent(
                at: try row.get("created_at"), kind: .notification,
                summary: "\(store) \(type)\(subtype)\(transaction): \(status)\(reason)",
                reference: .init(.notification, try row.get("id")))
        }
    }

    /// Credits and debits; adjustments come from their own table, with operator and reason.
    private static func ledger(_ db: any SQLSession, _ arguments: SQLArguments) async throws -> [AccountEvent] {
        try await db.rows(
            """
            SELECT kind, currency, amount, transaction_id, created_at FROM ledger_entries
            WHERE account_id = ? AND kind <> 'adjustment' ORDER BY id DESC LIMIT ?
            """, arguments
        ).map { row in
            let amount: Int = try row.get("amount")
            let kind: String = try row.get("kind")
            let currency: String = try row.get("currency")
            let transaction = try row.get("transaction_id", as: String?.self)
            let signed = amount > 0 ? "+\(amount)" : "\(amount)"
            return AccountEvent(
                at: try row.get("created_at"), kind: amount > 0 ? .credit : .debit,
                summary: "\(kind.replacingOccurrences(of: "_", with: " ")) \(signed) \(currency)"
                    + (transaction.map { " (transaction \($0))" } ?? ""),
                reference: .init(.transaction, transaction ?? ""))
        }
    }

    private static func conflicts(_ db: any SQLSession, _ account: String, _ limit: Int) async throws -> [AccountEvent]
    {
        try await db.rows(
            """
            SELECT transaction_id, claimant_account_id, credited_account_id, binding, created_at
            FROM binding_conflicts WHERE claimant_account_id = ? OR credited_account_id = ?
            ORDER BY id DESC LIMIT ?
            """, [account, account, limit]
        ).map { row in
            let transaction: String = try row.get("transaction_id")
            let claimant: String = try row.get("claimant_account_id")
            let credited: String = try row.get("credited_account_id")
            let binding: String = try row.get("binding")
            let summary =
                claimant == account
                ? "purchase \(transaction) sent by this account was credited to \(credited) (bound by \(binding))"
                : "purchase \(transaction) sent by \(claimant) was credited here (bound by \(binding))"
            return AccountEvent(
                at: try row.get("created_at"), kind: .conflict, summary: summary,
                reference: .init(.transaction, transaction))
        }
    }

    private static func adjustments(_ db: any SQLSession, _ arguments: SQLArguments) async throws -> [AccountEvent] {
        try await db.rows(
            "\(AdjustmentRepository.select) WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?", arguments
        ).map { row in
            let record = try AdjustmentRepository.record(from: row)
            let what: String =
                switch record.change {
                case .currency(let currency, let amount):
                    "\(amount > 0 ? "granted +" : "took back ")\(amount > 0 ? amount : -amount) \(currency)"
                        + (record.balance.map { ", balance \($0)" } ?? "")
                        + (record.writtenOff.map { $0 > 0 ? ", \($0) written off" : "" } ?? "")
                case .entitlement(let name, let until):
                    "granted \(name) until \(ISO8601DateFormatter().string(from: until))"
                }
            return AccountEvent(
                at: record.createdAt, kind: .adjustment,
                summary: "\(record.operatorName) \(what): \(record.reason)", reference: .init(.adjustment, record.id))
        }
    }

    private static func deadLetters(_ db: any SQLSession, _ arguments: SQLArguments) async throws -> [AccountEvent] {
        try await db.rows(
            """
            SELECT id, reason, attempts, status, resolved_by, dead_at FROM dead_letters
            WHERE account_id = ? ORDER BY dead_at DESC LIMIT ?
            """, arguments
        ).map { row in
            let reason: String = try row.get("reason")
            let attempts: Int = try row.get("attempts")
            let status: String = try row.get("status")
            let by = try row.get("resolved_by", as: String?.self).map { " by \($0)" } ?? ""
            return AccountEvent(
                at: try row.get("dead_at"), kind: .deadLetter,
                summary:
                    "dead-lettered after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(reason) (\(status)\(by))",
                reference: .init(.deadLetter, try row.get("id")))
        }
    }

    private static func expiries(_ db: any SQLSession, _ arguments: SQLArguments) async throws -> [AccountEvent] {
        try await db.rows(
            """
            SELECT name, expires_at FROM entitlements WHERE account_id = ? AND expires_at <= ?
            ORDER BY expires_at DESC LIMIT ?
            """, arguments
        ).map { row in
            let name: String = try row.get("name")
            return AccountEvent(
                at: try row.get("expires_at"), kind: .expiry, summary: "\(name) expired",
                reference: .init(.entitlement, name))
        }
    }
}
