import GRDB
import Store

extension SQLiteDatabase {
    /// v3: orders and binding.
    ///
    /// - `orders`: made before a purchase, checked against the product's rules; at most one
    ///   open order per account and product, by the schema.
    /// - `app_account_tokens`: the UUIDs handed to StoreKit 2 as `appAccountToken`, and whose
    ///   they are (a token belongs to one account).
    /// - `binding_conflicts`: a purchase claimed by one account and credited to another
    ///   (a renewal sent by someone else, another account's order), kept for review.
    /// - `apple_transactions` gains the catalog product it credited (tiers share Apple ids),
    ///   the order it paid, and how its account was chosen.
    /// - `subscription_checks`: the scheduler's questions to Apple around each expiry.
    static func createV3(_ db: Database) throws {
        try db.create(table: "app_account_tokens") { t in
            t.primaryKey("token", .text).check(sql: "length(token) = 36 AND token = lower(token)")
            t.column("account_id", .text).notNull().references("accounts")
            t.column("created_at", .datetime).notNull()
        }
        try db.create(
            index: "app_account_tokens_on_account", on: "app_account_tokens", columns: ["account_id", "created_at"])

        try db.create(table: "orders") { t in
            t.primaryKey("id", .text).check(sql: "length(id) BETWEEN 1 AND 128")
            t.column("account_id", .text).notNull().references("accounts")
            t.column("product_id", .text).notNull().check(sql: "length(product_id) > 0")
            // What the app was told to buy (the first-purchase price's id, or the regular one).
            t.column("apple_product_id", .text).notNull()
            t.column("app_account_token", .text).notNull().references("app_account_tokens")
            t.column("first_purchase", .boolean).notNull()
            t.column("status", .text).notNull()
                .check(sql: "status IN ('open', 'fulfilled', 'mismatched', 'cancelled', 'expired')")
            t.column("created_at", .datetime).notNull()
            t.column("expires_at", .datetime).notNull()
            t.column("closed_at", .datetime)
            t.column("close_reason", .text)
            // The payment that closed it, and what it credited (Apple's product decides).
            t.column("receipt_id", .text).references("receipts")
            t.column("transaction_id", .text)
            t.column("credited_product_id", .text)
            t.check(sql: "(status = 'open') = (closed_at IS NULL)")
            t.check(sql: "status NOT IN ('fulfilled', 'mismatched') OR transaction_id IS NOT NULL")
        }
        // One open order per account and product, whoever races.
        try db.create(
            index: "orders_one_open_per_account_product", on: "orders", columns: ["account_id", "product_id"],
            options: .unique, condition: Column("status") == "open")
        try db.create(
            index: "orders_on_account_product_created", on: "orders",
            columns: ["account_id", "product_id", "created_at"])

        try db.create(table: "binding_conflicts") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("transaction_id", .text).notNull()
            t.column("original_transaction_id", .text).notNull()
            t.column("receipt_id", .text).references("receipts")
            t.column("claimant_account_id", .text).notNull()
            t.column("credited_account_id", .text).notNull()
            t.column("binding", .text).notNull()
            t.column("created_at", .datetime).notNull()
            t.uniqueKey(["transaction_id", "receipt_id"])
        }

        try db.alter(table: "apple_transactions") { t in
            t.add(column: "catalog_product_id", .text)
            t.add(column: "order_id", .text).references("orders")
            t.add(column: "binding", .text)
                .check(sql: "binding IN ('order', 'app_account_token', 'original_transaction', 'submitter')")
        }
        // First purchases and daily counts look for an account's purchases of a product.
        try db.create(
            index: "apple_transactions_on_account_product", on: "apple_transactions",
            columns: ["account_id", "catalog_product_id"])

        try db.create(table: "subscription_checks") { t in
            t.primaryKey("id", .text).check(sql: "length(id) BETWEEN 1 AND 128")
            t.column("original_transaction_id", .text).notNull()
            t.column("account_id", .text).notNull().references("accounts")
            t.column("entitlement", .text).notNull()
            // The expiry this check is about, and whether it runs before or after it.
            t.column("expires_at", .datetime).notNull()
            t.column("phase", .text).notNull().check(sql: "phase IN ('before', 'after')")
            t.column("due_at", .datetime).notNull()
            t.column("status", .text).notNull().check(sql: "status IN ('scheduled', 'checking', 'done', 'failed')")
            t.column("outcome", .text)
            t.column("reason", .text)
            // The legacy receipt re-verified, when the Server API is not used.
            t.column("receipt_id", .text).references("receipts")
            t.column("created_at", .datetime).notNull()
            t.column("updated_at", .datetime).notNull()
            t.column("published_at", .datetime)
            t.uniqueKey(["original_transaction_id", "expires_at", "phase"])
        }
        try db.create(index: "subscription_checks_due", on: "subscription_checks", columns: ["status", "due_at"])
        // The scheduler looks for subscriptions that expire soon.
        try db.create(index: "entitlements_on_expires_at", on: "entitlements", columns: ["expires_at"])
    }
}
