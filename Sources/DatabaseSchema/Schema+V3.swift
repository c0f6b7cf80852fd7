extension Schema {
    /// v3: orders and binding (issue 5).
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
    ///
    /// PostgreSQL: see ``version1``.
    static let version3 = SchemaMigration(
        version: 3, summary: "orders, binding and subscription checks",
        sqlite: [
            """
            CREATE TABLE "app_account_tokens" (\
            "token" TEXT PRIMARY KEY NOT NULL CHECK (length(token) = 36 AND token = lower(token)), \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "created_at" DATETIME NOT NULL)
            """,
            #"CREATE INDEX "app_account_tokens_on_account" ON "app_account_tokens"("account_id", "created_at")"#,
            // `apple_product_id`: what the app was told to buy (the first-purchase price's id, or the regular
            // one); `receipt_id`, `transaction_id`, `credited_product_id`: the payment that closed it, and what
            // it credited (Apple's product decides).
            """
            CREATE TABLE "orders" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "product_id" TEXT NOT NULL CHECK (length(product_id) > 0), \
            "apple_product_id" TEXT NOT NULL, \
            "app_account_token" TEXT NOT NULL REFERENCES "app_account_tokens"("token"), \
            "first_purchase" BOOLEAN NOT NULL, \
            "status" TEXT NOT NULL CHECK (status IN ('open', 'fulfilled', 'mismatched', 'cancelled', 'expired')), \
            "created_at" DATETIME NOT NULL, \
            "expires_at" DATETIME NOT NULL, \
            "closed_at" DATETIME, \
            "close_reason" TEXT, \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "transaction_id" TEXT, \
            "credited_product_id" TEXT, \
            CHECK ((status = 'open') = (closed_at IS NULL)), \
            CHECK (status NOT IN ('fulfilled', 'mismatched') OR transaction_id IS NOT NULL))
            """,
            // One open order per account and product, whoever races.
            """
            CREATE UNIQUE INDEX "orders_one_open_per_account_product" ON "orders"("account_id", "product_id") \
            WHERE "status" = 'open'
            """,
            #"CREATE INDEX "orders_on_account_product_created" ON "orders"("account_id", "product_id", "created_at")"#,
            """
            CREATE TABLE "binding_conflicts" (\
            "id" INTEGER PRIMARY KEY AUTOINCREMENT, \
            "transaction_id" TEXT NOT NULL, \
            "original_transaction_id" TEXT NOT NULL, \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "claimant_account_id" TEXT NOT NULL, \
            "credited_account_id" TEXT NOT NULL, \
            "binding" TEXT NOT NULL, \
            "created_at" DATETIME NOT NULL, \
            UNIQUE ("transaction_id", "receipt_id"))
            """,
            #"ALTER TABLE "apple_transactions" ADD COLUMN "catalog_product_id" TEXT"#,
            #"ALTER TABLE "apple_transactions" ADD COLUMN "order_id" TEXT REFERENCES "orders"("id")"#,
            """
            ALTER TABLE "apple_transactions" \
            ADD COLUMN "binding" TEXT CHECK (binding IN ('order', 'app_account_token', 'original_transaction', \
            'submitter'))
            """,
            // First purchases and daily counts look for an account's purchases of a product.
            """
            CREATE INDEX "apple_transactions_on_account_product" \
            ON "apple_transactions"("account_id", "catalog_product_id")
            """,
            // `expires_at`, `phase`: the expiry this check is about, and whether it runs before or after it;
            // `receipt_id`: the legacy receipt re-verified, when the Server API is not used.
            """
            CREATE TABLE "subscription_checks" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            "original_transaction_id" TEXT NOT NULL, \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "entitlement" TEXT NOT NULL, \
            "expires_at" DATETIME NOT NULL, \
            "phase" TEXT NOT NULL CHECK (phase IN ('before', 'after')), \
            "due_at" DATETIME NOT NULL, \
            "status" TEXT NOT NULL CHECK (status IN ('scheduled', 'checking', 'done', 'failed')), \
            "outcome" TEXT, \
            "reason" TEXT, \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "created_at" DATETIME NOT NULL, \
            "updated_at" DATETIME NOT NULL, \
            "published_at" DATETIME, \
            UNIQUE ("original_transaction_id", "expires_at", "phase"))
            """,
            #"CREATE INDEX "subscription_checks_due" ON "subscription_checks"("status", "due_at")"#,
            // The scheduler looks for subscriptions that expire soon.
            #"CREATE INDEX "entitlements_on_expires_at" ON "entitlements"("expires_at")"#,
        ],
        postgres: [])
}
