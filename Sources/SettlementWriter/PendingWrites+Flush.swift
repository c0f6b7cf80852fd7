import Database
import Foundation
import PipelineCore
import Settlement

extension PendingWrites {
    /// Writes everything, a statement or two per table, parents before children (the
    /// schema's foreign keys are checked at each statement).
    func flush(_ db: any SQLSession, stamp: SQLValue, now: Date) async throws {
        guard !isEmpty else { return }
        try await db.insert(
            into: "accounts", columns: ["id", "created_at"], rows: accounts.map { [$0, stamp] },
            suffix: "ON CONFLICT (id) DO NOTHING")
        try await writeTransactions(db, stamp: stamp)
        try await writeLedger(db, stamp: stamp)
        let converting = try await RevenueDay.converting(revenue, db)
        try await db.insert(
            into: "revenue_entries", columns: RevenueEntry.storedColumns, rows: revenue.map { $0.values(at: stamp) })
        try await RevenueDay.add(revenue, on: now, converting: converting, db)
        try await writeEntitlements(db, stamp: stamp)
        try await db.insert(
            into: "binding_conflicts",
            columns: [
                "transaction_id", "original_transaction_id", "receipt_id", "claimant_account_id",
                "credited_account_id", "binding", "created_at",
            ],
            rows: conflicts.map {
                [
                    $0.transactionID, $0.originalTransactionID, $0.receiptID, $0.claimantAccountID,
                    $0.creditedAccountID, $0.binding.rawValue, stamp,
                ]
            })
        try await db.insert(
            into: "account_flags",
            columns: ["account_id", "reason", "currency", "amount", "transaction_id", "notification_id", "created_at"],
            rows: flags.map {
                [$0.accountID, $0.reason.rawValue, $0.currency, $0.amount, $0.transactionID, $0.notificationID, stamp]
            },
            suffix: "ON CONFLICT (transaction_id, reason) DO NOTHING")
        try await writeOrders(db, stamp: stamp)
        try await writeSubjects(db, stamp: stamp)
        try await db.insert(contentsOf: outbox, into: "notification_outbox")
        if !outbox.isEmpty { try await db.signal(.outbox) }
        try await db.insert(
            into: "store_confirmations",
            columns: [
                "store", "transaction_id", "app", "payload", "receipt_id", "status", "attempts", "next_attempt_at",
                "created_at",
            ],
            rows: confirmations.map {
                [$0.store, $0.transactionID, $0.app, $0.payload, $0.receiptID, "pending", 0, stamp, stamp]
            },
            suffix: "ON CONFLICT (store, transaction_id) DO NOTHING")
    }

    private func writeTransactions(_ db: any SQLSession, stamp: SQLValue) async throws {
        if !forgotten.isEmpty {
            _ = try await db.rows(
                "DELETE FROM store_transactions WHERE transaction_id IN (?) RETURNING transaction_id",
                in: Array(forgotten))
        }
        try await db.insert(
            into: "store_transactions",
            columns: [
                "transaction_id", "original_transaction_id", "product_id", "quantity", "environment", "receipt_id",
                "notification_id", "account_id", "purchase_date", "expires_date", "cancellation_date", "state",
                "entitlement", "created_at", "updated_at", "catalog_product_id", "order_id", "binding", "app",
                "offer_type", "offer_id",
            ],
            rows: transactions.map { record in
                [
                    record.transactionID, record.originalTransactionID, record.productID, record.quantity,
                    record.environment, record.receiptID, record.notificationID, record.accountID,
                    record.purchaseDate, record.expiresDate, record.cancellationDate, record.state.rawValue,
                    record.entitlement, stamp, stamp, record.catalogProductID, record.orderID, record.binding?.rawValue,
                    record.app, record.offerType, record.offerID,
                ]
            })
        try await db.update(
            "store_transactions", key: "transaction_id",
            columns: [
                SQLColumn("state", .text), SQLColumn("cancellation_date", .timestamp),
                SQLColumn("updated_at", .timestamp),
            ],
            rows: transactionUpdates.sorted { $0.key < $1.key }.map {
                [$0.key, $0.value.state.rawValue, $0.value.cancellationDate, stamp]
            })
    }

    /// Ledger entries in the order posted; each balance moved once, by the sum of its postings.
    private func writeLedger(_ db: any SQLSession, stamp: SQLValue) async throws {
        try await db.insert(
            into: "ledger_entries",
            columns: [
                "account_id", "currency", "amount", "kind", "receipt_id", "notification_id", "transaction_id",
                "created_at", "step",
            ],
            rows: ledger.map {
                [
                    $0.accountID, $0.currency, $0.amount, $0.kind.rawValue, $0.receiptID, $0.notificationID,
                    $0.transactionID, stamp, $0.step,
                ]
            })
        try await db.insert(
            into: "balances", columns: ["account_id", "currency", "amount"],
            rows: balanceDeltas.sorted { ($0.key.accountID, $0.key.currency) < ($1.key.accountID, $1.key.currency) }
                .map { [$0.key.accountID, $0.key.currency, $0.value] },
            suffix: "ON CONFLICT (account_id, currency) DO UPDATE SET amount = balances.amount + excluded.amount")
    }

    private func writeEntitlements(_ db: any SQLSession, stamp: SQLValue) async throws {
        try await db.insert(
            into: "entitlements",
            columns: ["account_id", "name", "expires_at", "original_transaction_id", "updated_at"],
            rows: entitlements.sorted { ($0.key.accountID, $0.key.name) < ($1.key.accountID, $1.key.name) }
                .map { [$0.key.accountID, $0.key.name, $0.value.expiresAt, $0.value.originalTransactionID, stamp] },
            suffix: """
                ON CONFLICT (account_id, name) DO UPDATE SET expires_at = excluded.expires_at,
                    original_transaction_id = excluded.original_transaction_id, updated_at = excluded.updated_at
                """)
    }

    private func writeOrders(_ db: any SQLSession, stamp: SQLValue) async throws {
        try await db.update(
            "orders", key: "id",
            columns: [
                SQLColumn("status", .text), SQLColumn("closed_at", .timestamp), SQLColumn("close_reason", .text),
                SQLColumn("receipt_id", .text), SQLColumn("transaction_id", .text),
                SQLColumn("credited_product_id", .text),
            ],
            rows: orderClosings.values.sorted { $0.orderID < $1.orderID }.map { closing in
                [
                    closing.orderID, (closing.matches ? OrderStatus.fulfilled : .mismatched).rawValue, stamp,
                    closing.reason, closing.receiptID, closing.transactionID, closing.creditedProductID,
                ]
            })
    }

    /// The receipts, notifications and checks the batch moved on, and what each
    /// transaction of a receipt came to.
    private func writeSubjects(_ db: any SQLSession, stamp: SQLValue) async throws {
        // The relay marks the same receipts and notifications published, in its own order.
        try await db.lockInKeyOrder("receipts", key: "id", Array(receipts.keys))
        try await db.lockInKeyOrder("store_notifications", key: "id", Array(notifications.keys))
        try await db.update(
            "receipts", key: "id",
            columns: [
                SQLColumn("status", .text), SQLColumn("reason", .text), SQLColumn("attempts", .integer),
                SQLColumn("environment", .text), SQLColumn("updated_at", .timestamp),
            ],
            rows: receipts.values.sorted { $0.id < $1.id }.map {
                [$0.id, $0.status.rawValue, $0.reason, $0.attempts, $0.environment, stamp]
            })
        try await db.insert(
            into: "receipt_transactions",
            columns: [
                "receipt_id", "transaction_id", "product_id", "outcome", "currency", "amount", "entitlement",
                "expires_at",
            ],
            rows: receiptTransactions.map { row in
                let carried = row.carried
                return [
                    row.receiptID, carried.transactionID, carried.productID, carried.outcome.rawValue,
                    carried.currency, carried.amount, carried.entitlement, carried.expiresAt,
                ]
            })
        try await db.update(contentsOf: notifications.values.sorted { $0.id < $1.id }, in: "store_notifications")
        try await db.update(contentsOf: checks.values.sorted { $0.id < $1.id }, in: "subscription_checks")
    }
}
