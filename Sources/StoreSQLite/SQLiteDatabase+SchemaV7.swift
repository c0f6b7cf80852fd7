import GRDB
import Store

extension SQLiteDatabase {
    /// v7: `manual_adjustments`, an operator's grants and revokes (``AdjustmentStore``): the
    /// currency and signed amount, or the entitlement and its end; the reason, the operator,
    /// the balance after and what policy `clamp` wrote off. Its ledger entries carry
    /// `adjustment:<id>` as their transaction. The idempotency key is unique: a double
    /// click counts once. The outbox's `type` check gains `account.adjusted` and
    /// `entitlement.granted` (SQLite cannot alter a check: the table is rebuilt, rowids kept).
    static func createV7(_ db: Database) throws {
        try rebuildOutboxForManualWebhooks(db)
        try db.create(table: "manual_adjustments") { t in
            t.primaryKey("id", .text)
            t.column("idempotency_key", .text).notNull().unique()
            t.column("account_id", .text).notNull().references("accounts")
            t.column("kind", .text).notNull().check(sql: "kind IN ('currency', 'entitlement')")
            t.column("currency", .text)
            t.column("amount", .integer)
            t.column("entitlement", .text)
            t.column("expires_at", .datetime)
            t.column("reason", .text).notNull().check(sql: "length(trim(reason)) > 0")
            t.column("operator", .text).notNull().check(sql: "length(operator) > 0")
            t.column("balance", .integer)
            t.column("written_off", .integer)
            t.column("created_at", .datetime).notNull()
            t.check(sql: "kind <> 'currency' OR (currency IS NOT NULL AND amount IS NOT NULL AND amount <> 0)")
            t.check(sql: "kind <> 'entitlement' OR (entitlement IS NOT NULL AND expires_at IS NOT NULL)")
        }
        try db.create(
            index: "manual_adjustments_on_account", on: "manual_adjustments", columns: ["account_id", "created_at"])
    }
}

extension SQLiteDatabase {
    private static func rebuildOutboxForManualWebhooks(_ db: Database) throws {
        try rebuild(table: "notification_outbox", in: db) {
            $0.replacingOccurrences(
                of: "'subscription.renewed', 'subscription.expired')",
                with: "'subscription.renewed', 'subscription.expired', 'account.adjusted', 'entitlement.granted')")
        }
    }
}
