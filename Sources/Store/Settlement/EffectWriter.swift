import Foundation
import PipelineCore
import Settlement

/// Applies the settlement engine's effects, in order, inside the writer's transaction.
///
/// Only stores: every rule was decided by the engine. The schema's unique keys back the
/// engine up: a transaction is recorded once, and its purchase and its debit are posted
/// once each.
struct EffectWriter {
    let db: any SQLSession
    let now: Date
    /// `now` as the database stores it, converted once: Foundation's date formatting is not
    /// cheap, and one batch of verdicts writes `now` dozens of times.
    let stamp: SQLValue

    init(db: any SQLSession, now: Date) {
        self.db = db
        self.now = now
        self.stamp = db.stored(now)
    }

    func apply(_ effects: [SettlementEffect]) async throws {
        for effect in effects { try await apply(effect) }
    }

    func apply(_ effect: SettlementEffect) async throws {
        switch effect {
        case .openAccount(let id):
            try await execute(
                "INSERT INTO accounts (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", [id, stamp])
        case .recordTransaction(let record):
            try await execute(
                """
                INSERT INTO apple_transactions (
                    transaction_id, original_transaction_id, product_id, quantity, environment, receipt_id,
                    notification_id, account_id, purchase_date, expires_date, cancellation_date, state, entitlement,
                    created_at, updated_at, catalog_product_id, order_id, binding)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    record.transactionID, record.originalTransactionID, record.productID, record.quantity,
                    record.environment, record.receiptID, record.notificationID, record.accountID,
                    record.purchaseDate, record.expiresDate, record.cancellationDate, record.state.rawValue,
                    record.entitlement, stamp, stamp, record.catalogProductID, record.orderID, record.binding?.rawValue,
                ])
        case .updateTransaction(let id, let state, let cancellationDate):
            try await execute(
                "UPDATE apple_transactions SET state = ?, cancellation_date = ?, updated_at = ? WHERE transaction_id = ?",
                [state.rawValue, cancellationDate, stamp, id])
        case .forgetTransaction(let id):
            try await execute("DELETE FROM apple_transactions WHERE transaction_id = ?", [id])
        case .post(let posting):
            try await post(posting)
        case .setEntitlement(let accountID, let name, let end):
            try await execute(
                """
                INSERT INTO entitlements (account_id, name, expires_at, original_transaction_id, updated_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (account_id, name) DO UPDATE SET expires_at = excluded.expires_at,
                    original_transaction_id = excluded.original_transaction_id, updated_at = excluded.updated_at
                """,
                [accountID, name, end.expiresAt, end.originalTransactionID, stamp])
        case .recordConflict(let conflict):
            try await execute(
                """
                INSERT INTO binding_conflicts (
                    transaction_id, original_transaction_id, receipt_id, claimant_account_id, credited_account_id,
                    binding, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    conflict.transactionID, conflict.originalTransactionID, conflict.receiptID,
                    conflict.claimantAccountID, conflict.creditedAccountID, conflict.binding.rawValue, stamp,
                ])
        case .flagAccount(let flag):
            try await execute(
                """
                INSERT INTO account_flags (
                    account_id, reason, currency, amount, transaction_id, notification_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (transaction_id, reason) DO NOTHING
                """,
                [
                    flag.accountID, flag.reason.rawValue, flag.currency, flag.amount, flag.transactionID,
                    flag.notificationID, stamp,
                ])
        case .closeOrder(let closing):
            try await execute(
                """
                UPDATE orders SET status = ?, closed_at = ?, close_reason = ?, receipt_id = ?, transaction_id = ?,
                    credited_product_id = ?
                WHERE id = ?
                """,
                [
                    (closing.matches ? OrderStatus.fulfilled : .mismatched).rawValue, stamp, closing.reason,
                    closing.receiptID, closing.transactionID, closing.creditedProductID, closing.orderID,
                ])
        case .send(let webhook):
            let entry = try OutboxEntry(webhook, now: now)
            try await execute(
                """
                INSERT INTO notification_outbox (
                    id, type, receipt_id, notification_id, account_id, body, status, attempts, next_attempt_at,
                    created_at)
                VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)
                """,
                [
                    entry.id, entry.type.rawValue, entry.receiptID, entry.notificationID, entry.accountID, entry.body,
                    stamp, stamp,
                ])
        }
    }

    /// A ledger entry, and its balance moved by the same amount.
    private func post(_ posting: LedgerPosting) async throws {
        try await execute(
            """
            INSERT INTO ledger_entries (
                account_id, currency, amount, kind, receipt_id, notification_id, transaction_id, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                posting.accountID, posting.currency, posting.amount, posting.kind.rawValue, posting.receiptID,
                posting.notificationID, posting.transactionID, stamp,
            ])
        try await execute(
            """
            INSERT INTO balances (account_id, currency, amount) VALUES (?, ?, ?)
            ON CONFLICT (account_id, currency) DO UPDATE SET amount = balances.amount + excluded.amount
            """,
            [posting.accountID, posting.currency, posting.amount])
    }

    private func execute(_ sql: String, _ arguments: SQLArguments) async throws {
        try await db.execute(sql, arguments)
    }
}
