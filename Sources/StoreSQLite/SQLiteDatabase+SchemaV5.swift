import GRDB
import Store

extension SQLiteDatabase {
    /// v5: refunds a balance cannot pay (the catalog's `negative_balance` policy),
    /// reconciliation with Apple's Notification History, and answers to its consumption
    /// requests.
    ///
    /// - `ledger_entries` is rebuilt for the kind `write_off`: beside a refund's whole debit,
    ///   the part the balance could not give, credited back (policy `clamp`); one per
    ///   transaction, like every credit.
    /// - `account_flags`: accounts a refund took below zero, or would have; once per
    ///   transaction and reason.
    /// - `reconciliation_runs`: each look at Apple's Notification History, its window and
    ///   what it found missing and fed; the next scheduled run starts where the last ended.
    /// - `consumption_consents`: whether a player consented to share consumption data with
    ///   Apple (the backend records it); `consumption_answers`: what we told Apple, or why not,
    ///   per `CONSUMPTION_REQUEST`.
    static func createV5(_ db: Database) throws {
        try db.create(table: "ledger_entries_v5") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("account_id", .text).notNull().references("accounts")
            t.column("currency", .text).notNull().check(sql: "length(currency) > 0")
            t.column("amount", .integer).notNull().check(sql: "amount <> 0")
            t.column("kind", .text).notNull()
                .check(
                    sql: "kind IN ('purchase', 'refund', 'revoke', 'refund_reversal', 'adjustment', 'write_off')")
            t.column("receipt_id", .text).references("receipts")
            t.column("notification_id", .text).references("apple_notifications")
            t.column("transaction_id", .text)
            t.column("created_at", .datetime).notNull()
            t.uniqueKey(["transaction_id", "kind"])
            t.check(sql: "kind <> 'purchase' OR (amount > 0 AND transaction_id IS NOT NULL)")
            t.check(sql: "kind NOT IN ('refund', 'revoke') OR (amount < 0 AND transaction_id IS NOT NULL)")
            t.check(sql: "kind <> 'refund_reversal' OR (amount > 0 AND transaction_id IS NOT NULL)")
            t.check(sql: "kind <> 'write_off' OR (amount > 0 AND transaction_id IS NOT NULL)")
        }
        try db.execute(
            sql: """
                INSERT INTO ledger_entries_v5 (
                    id, account_id, currency, amount, kind, receipt_id, notification_id, transaction_id, created_at)
                SELECT id, account_id, currency, amount, kind, receipt_id, notification_id, transaction_id, created_at
                FROM ledger_entries
                """)
        try db.drop(table: "ledger_entries")
        try db.rename(table: "ledger_entries_v5", to: "ledger_entries")
        try db.create(index: "ledger_entries_on_account", on: "ledger_entries", columns: ["account_id", "id"])
        try db.create(
            index: "ledger_entries_one_debit_per_transaction", on: "ledger_entries",
            columns: ["transaction_id"], options: .unique,
            condition: ["refund", "revoke"].contains(Column("kind")))

        try db.create(table: "account_flags") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("account_id", .text).notNull().references("accounts")
            t.column("reason", .text).notNull().check(sql: "reason IN ('negative_balance', 'refund_shortfall')")
            t.column("currency", .text).notNull().check(sql: "length(currency) > 0")
            // negative_balance: the balance after the refund; refund_shortfall: what was written off.
            t.column("amount", .integer).notNull()
            t.column("transaction_id", .text).notNull()
            t.column("notification_id", .text).references("apple_notifications")
            t.column("created_at", .datetime).notNull()
            t.uniqueKey(["transaction_id", "reason"])
        }
        try db.create(index: "account_flags_on_account", on: "account_flags", columns: ["account_id", "id"])

        try db.create(table: "reconciliation_runs") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("trigger", .text).notNull().check(sql: "trigger IN ('schedule', 'operator')")
            t.column("mode", .text).notNull().check(sql: "mode IN ('apply', 'dry_run')")
            t.column("window_start", .datetime).notNull()
            t.column("window_end", .datetime).notNull()
            t.column("examined", .integer).notNull().check(sql: "examined >= 0")
            t.column("missing", .integer).notNull().check(sql: "missing >= 0")
            t.column("fed", .integer).notNull().check(sql: "fed >= 0")
            t.column("error", .text)
            t.column("started_at", .datetime).notNull()
            t.column("finished_at", .datetime).notNull()
        }
        try db.create(index: "reconciliation_runs_on_end", on: "reconciliation_runs", columns: ["mode", "window_end"])

        try db.create(table: "consumption_consents") { t in
            t.primaryKey("account_id", .text).references("accounts")
            t.column("status", .text).notNull().check(sql: "status IN ('granted', 'withdrawn')")
            t.column("recorded_at", .datetime).notNull()
        }
        try db.create(table: "consumption_answers") { t in
            t.primaryKey("notification_id", .text).references("apple_notifications")
            t.column("transaction_id", .text).notNull()
            t.column("account_id", .text)
            t.column("status", .text).notNull().check(sql: "status IN ('sent', 'withheld', 'failed')")
            t.column("reason", .text)
            // The JSON sent to Apple, and Apple's HTTP status.
            t.column("body", .text)
            t.column("apple_status", .integer)
            t.column("tenure_days", .integer)
            t.column("attempts", .integer).notNull().check(sql: "attempts >= 0")
            t.column("updated_at", .datetime).notNull()
        }
    }
}
