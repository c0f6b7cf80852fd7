import GRDB
import Store

extension SQLiteDatabase {
    /// The schema, one named migration at a time. A migration never changes once it has
    /// shipped: a change to the schema is a new migration appended below.
    ///
    /// `eraseDatabaseOnSchemaChange` is deliberately not used, not even in DEBUG: this file
    /// holds accepted receipts and money, and is shared by several processes, so a debug
    /// build that erased it would break the promise behind every 202 already answered.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1") { db in
            try createV1(db)
        }

        // App Store Server Notifications V2, refunds and renewals. Tables whose CHECKs
        // change are rebuilt (SQLite cannot alter a constraint); GRDB runs the migration
        // with foreign keys off and checks them all before it commits.
        migrator.registerMigration("v2") { db in
            try createV2(db)
        }

        // Orders, binding and subscription checks (issue 5): new tables, new columns.
        migrator.registerMigration("v3") { db in
            try createV3(db)
        }

        // Later migrations go here.

        // The dead-letter archive (SQLiteDatabase+SchemaV4.swift).
        migrator.registerMigration("v4") { db in
            try createV4(db)
        }

        // Refunds a balance cannot pay: write-offs and account flags (SQLiteDatabase+SchemaV5.swift).
        migrator.registerMigration("v5") { db in
            try createV5(db)
        }

        // Call budgets shared by every process calling Apple (SQLiteDatabase+SchemaV6.swift).
        migrator.registerMigration("v6") { db in
            try createV6(db)
        }

        // Operators' grants and revokes (SQLiteDatabase+SchemaV7.swift).
        migrator.registerMigration("v7") { db in
            try createV7(db)
        }

        // Google Play receipts (SQLiteDatabase+SchemaV8.swift).
        migrator.registerMigration("v8") { db in
            try createV8(db)
        }

        // Google's real-time developer notifications (SQLiteDatabase+SchemaV9.swift).
        migrator.registerMigration("v9") { db in
            try createV9(db)
        }

        return migrator
    }

    private static func createV1(_ db: Database) throws {
        let hexDigest = { (column: String) in
            "length(\(column)) = 64 AND \(column) NOT GLOB '*[^0-9a-f]*'"
        }

        try db.create(table: "accounts") { t in
            t.primaryKey("id", .text).check(sql: "length(id) BETWEEN 1 AND 128")
            t.column("created_at", .datetime).notNull()
        }

        try db.create(table: "receipts") { t in
            t.primaryKey("id", .text).check(sql: "length(id) BETWEEN 1 AND 128")
            t.column("account_id", .text).notNull().references("accounts")
            t.column("kind", .text).notNull().check(sql: "kind IN ('legacy', 'storekit2')")
            t.column("payload", .text).notNull().check(sql: "length(payload) > 0")
            t.column("payload_hash", .text).notNull().check(sql: hexDigest("payload_hash"))
            t.column("order_id", .text)
            t.column("product_id", .text)
            t.column("status", .text).notNull()
                .check(sql: "status IN ('received', 'validating', 'retrying', 'credited', 'rejected', 'dead')")
            t.column("reason", .text)
            t.column("attempts", .integer).notNull().defaults(to: 0).check(sql: "attempts >= 0")
            t.column("environment", .text)
            t.column("idempotency_key", .text).check(sql: "length(idempotency_key) BETWEEN 1 AND 255")
            t.column("request_hash", .text).notNull().check(sql: hexDigest("request_hash"))
            t.column("created_at", .datetime).notNull()
            t.column("updated_at", .datetime).notNull()
            t.column("published_at", .datetime)
            // A receipt that ended without credit says why.
            t.check(sql: "status NOT IN ('rejected', 'dead') OR reason IS NOT NULL")
        }
        // The same receipt sent twice by an account is one receipt.
        try db.create(
            index: "receipts_on_account_payload", on: "receipts",
            columns: ["account_id", "payload_hash"], options: .unique)
        try db.create(
            index: "receipts_on_account_idempotency_key", on: "receipts",
            columns: ["account_id", "idempotency_key"], options: .unique,
            condition: Column("idempotency_key") != nil)
        // The relay's queue: receipts the broker has not confirmed yet.
        try db.create(
            index: "receipts_unpublished", on: "receipts",
            columns: ["created_at"], condition: Column("published_at") == nil)

        try db.create(table: "balances") { t in
            t.column("account_id", .text).notNull().references("accounts")
            t.column("currency", .text).notNull().check(sql: "length(currency) > 0")
            t.column("amount", .integer).notNull()
            t.primaryKey(["account_id", "currency"])
        }

        try db.create(table: "entitlements") { t in
            t.column("account_id", .text).notNull().references("accounts")
            t.column("name", .text).notNull().check(sql: "length(name) > 0")
            t.column("expires_at", .datetime)  // NULL: for ever
            t.column("original_transaction_id", .text)
            t.column("updated_at", .datetime).notNull()
            t.primaryKey(["account_id", "name"])
        }

        // One row per Apple transaction ever seen: the "credit once, ever" guard.
        try db.create(table: "apple_transactions") { t in
            t.primaryKey("transaction_id", .text).check(sql: "length(transaction_id) > 0")
            t.column("original_transaction_id", .text).notNull()
            t.column("product_id", .text).notNull()
            t.column("quantity", .integer).notNull().check(sql: "quantity >= 1")
            t.column("environment", .text)
            t.column("receipt_id", .text).notNull().references("receipts")
            t.column("account_id", .text).notNull().references("accounts")
            t.column("purchase_date", .datetime)
            t.column("expires_date", .datetime)
            t.column("cancellation_date", .datetime)
            t.column("state", .text).notNull().check(sql: "state IN ('credited', 'refunded', 'revoked', 'unpaid')")
            t.column("created_at", .datetime).notNull()
            t.column("updated_at", .datetime).notNull()
        }
        try db.create(index: "apple_transactions_on_receipt", on: "apple_transactions", columns: ["receipt_id"])
        try db.create(
            index: "apple_transactions_on_original", on: "apple_transactions",
            columns: ["original_transaction_id"])

        // What each receipt carried, and what became of each transaction in it.
        try db.create(table: "receipt_transactions") { t in
            t.column("receipt_id", .text).notNull().references("receipts")
            t.column("transaction_id", .text).notNull().check(sql: "length(transaction_id) > 0")
            t.column("product_id", .text).notNull()
            t.column("outcome", .text).notNull()
                .check(sql: "outcome IN ('credited', 'already_credited', 'unknown_product', 'refunded')")
            t.column("currency", .text)
            t.column("amount", .integer)
            t.column("entitlement", .text)
            t.column("expires_at", .datetime)
            t.primaryKey(["receipt_id", "transaction_id"])
            t.check(sql: "(currency IS NULL) = (amount IS NULL)")
            t.check(sql: "outcome <> 'credited' OR currency IS NOT NULL OR entitlement IS NOT NULL")
            t.check(sql: "outcome = 'credited' OR (currency IS NULL AND entitlement IS NULL)")
        }

        try db.create(table: "ledger_entries") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("account_id", .text).notNull().references("accounts")
            t.column("currency", .text).notNull().check(sql: "length(currency) > 0")
            t.column("amount", .integer).notNull().check(sql: "amount <> 0")
            t.column("kind", .text).notNull().check(sql: "kind IN ('purchase', 'refund', 'adjustment')")
            t.column("receipt_id", .text).references("receipts")
            t.column("transaction_id", .text)
            t.column("created_at", .datetime).notNull()
            // The second guard against double credit (and double refund).
            t.uniqueKey(["transaction_id", "kind"])
            t.check(sql: "kind <> 'purchase' OR (amount > 0 AND transaction_id IS NOT NULL)")
            t.check(sql: "kind <> 'refund' OR (amount < 0 AND transaction_id IS NOT NULL)")
        }
        try db.create(index: "ledger_entries_on_account", on: "ledger_entries", columns: ["account_id", "id"])

        try db.create(table: "notification_outbox") { t in
            t.primaryKey("id", .text).check(sql: "length(id) > 0")
            t.column("type", .text).notNull().check(
                sql: """
                    type IN ('receipt.credited', 'receipt.rejected', 'receipt.dead', 'purchase.refunded', \
                    'subscription.renewed', 'subscription.expired')
                    """)
            t.column("receipt_id", .text).references("receipts")
            t.column("account_id", .text).notNull().references("accounts")
            t.column("body", .text).notNull().check(sql: "json_valid(body)")
            t.column("status", .text).notNull().check(sql: "status IN ('pending', 'delivered', 'failed')")
            t.column("attempts", .integer).notNull().defaults(to: 0).check(sql: "attempts >= 0")
            t.column("next_attempt_at", .datetime)
            t.column("last_error", .text)
            t.column("created_at", .datetime).notNull()
            t.column("delivered_at", .datetime)
            t.check(sql: "status <> 'pending' OR next_attempt_at IS NOT NULL")
            t.check(sql: "(status = 'delivered') = (delivered_at IS NOT NULL)")
        }
        try db.create(
            index: "notification_outbox_due", on: "notification_outbox",
            columns: ["status", "next_attempt_at"])
        // A receipt ends once, so it announces its end once.
        try db.create(
            index: "notification_outbox_one_final_per_receipt", on: "notification_outbox",
            columns: ["receipt_id"], options: .unique,
            condition: ["receipt.credited", "receipt.rejected", "receipt.dead"].contains(Column("type")))
    }
}
