extension Schema {
    /// v1: accounts, receipts, balances, entitlements, Apple transactions, what each receipt
    /// carried, the ledger and the webhook outbox.
    ///
    /// PostgreSQL has no statements here, nor in versions 2 and 3: its schema began as one
    /// step that created these tables in their v4 shape (``version4``), and v2 and v3
    /// rebuild or alter tables that step made whole.
    static let version1 = SchemaMigration(
        version: 1, summary: "accounts, receipts, the ledger and the webhook outbox",
        sqlite: [
            """
            CREATE TABLE "accounts" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            "created_at" DATETIME NOT NULL)
            """,
            // A receipt that ended without credit (rejected, dead) says why.
            """
            CREATE TABLE "receipts" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "kind" TEXT NOT NULL CHECK (kind IN ('legacy', 'storekit2')), \
            "payload" TEXT NOT NULL CHECK (length(payload) > 0), \
            "payload_hash" TEXT NOT NULL CHECK (length(payload_hash) = 64 AND payload_hash NOT GLOB '*[^0-9a-f]*'), \
            "order_id" TEXT, \
            "product_id" TEXT, \
            "status" TEXT NOT NULL CHECK (status IN ('received', 'validating', 'retrying', 'credited', 'rejected', \
            'dead')), \
            "reason" TEXT, \
            "attempts" INTEGER NOT NULL CHECK (attempts >= 0) DEFAULT 0, \
            "environment" TEXT, \
            "idempotency_key" TEXT CHECK (length(idempotency_key) BETWEEN 1 AND 255), \
            "request_hash" TEXT NOT NULL CHECK (length(request_hash) = 64 AND request_hash NOT GLOB '*[^0-9a-f]*'), \
            "created_at" DATETIME NOT NULL, \
            "updated_at" DATETIME NOT NULL, \
            "published_at" DATETIME, \
            CHECK (status NOT IN ('rejected', 'dead') OR reason IS NOT NULL))
            """,
            // The same receipt sent twice by an account is one receipt.
            #"CREATE UNIQUE INDEX "receipts_on_account_payload" ON "receipts"("account_id", "payload_hash")"#,
            """
            CREATE UNIQUE INDEX "receipts_on_account_idempotency_key" ON "receipts"("account_id", "idempotency_key") \
            WHERE "idempotency_key" IS NOT NULL
            """,
            // The relay's queue: receipts the broker has not confirmed yet.
            #"CREATE INDEX "receipts_unpublished" ON "receipts"("created_at") WHERE "published_at" IS NULL"#,
            """
            CREATE TABLE "balances" (\
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "currency" TEXT NOT NULL CHECK (length(currency) > 0), \
            "amount" INTEGER NOT NULL, \
            PRIMARY KEY ("account_id", "currency"))
            """,
            // `expires_at` NULL: for ever.
            """
            CREATE TABLE "entitlements" (\
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "name" TEXT NOT NULL CHECK (length(name) > 0), \
            "expires_at" DATETIME, \
            "original_transaction_id" TEXT, \
            "updated_at" DATETIME NOT NULL, \
            PRIMARY KEY ("account_id", "name"))
            """,
            // One row per Apple transaction ever seen: the "credit once, ever" guard.
            """
            CREATE TABLE "apple_transactions" (\
            "transaction_id" TEXT PRIMARY KEY NOT NULL CHECK (length(transaction_id) > 0), \
            "original_transaction_id" TEXT NOT NULL, \
            "product_id" TEXT NOT NULL, \
            "quantity" INTEGER NOT NULL CHECK (quantity >= 1), \
            "environment" TEXT, \
            "receipt_id" TEXT NOT NULL REFERENCES "receipts"("id"), \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "purchase_date" DATETIME, \
            "expires_date" DATETIME, \
            "cancellation_date" DATETIME, \
            "state" TEXT NOT NULL CHECK (state IN ('credited', 'refunded', 'revoked', 'unpaid')), \
            "created_at" DATETIME NOT NULL, \
            "updated_at" DATETIME NOT NULL)
            """,
            #"CREATE INDEX "apple_transactions_on_receipt" ON "apple_transactions"("receipt_id")"#,
            #"CREATE INDEX "apple_transactions_on_original" ON "apple_transactions"("original_transaction_id")"#,
            // What each receipt carried, and what became of each transaction in it.
            """
            CREATE TABLE "receipt_transactions" (\
            "receipt_id" TEXT NOT NULL REFERENCES "receipts"("id"), \
            "transaction_id" TEXT NOT NULL CHECK (length(transaction_id) > 0), \
            "product_id" TEXT NOT NULL, \
            "outcome" TEXT NOT NULL CHECK (outcome IN ('credited', 'already_credited', 'unknown_product', \
            'refunded')), \
            "currency" TEXT, \
            "amount" INTEGER, \
            "entitlement" TEXT, \
            "expires_at" DATETIME, \
            PRIMARY KEY ("receipt_id", "transaction_id"), \
            CHECK ((currency IS NULL) = (amount IS NULL)), \
            CHECK (outcome <> 'credited' OR currency IS NOT NULL OR entitlement IS NOT NULL), \
            CHECK (outcome = 'credited' OR (currency IS NULL AND entitlement IS NULL)))
            """,
            // UNIQUE (transaction_id, kind): the second guard against double credit (and double refund).
            """
            CREATE TABLE "ledger_entries" (\
            "id" INTEGER PRIMARY KEY AUTOINCREMENT, \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "currency" TEXT NOT NULL CHECK (length(currency) > 0), \
            "amount" INTEGER NOT NULL CHECK (amount <> 0), \
            "kind" TEXT NOT NULL CHECK (kind IN ('purchase', 'refund', 'adjustment')), \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "transaction_id" TEXT, \
            "created_at" DATETIME NOT NULL, \
            UNIQUE ("transaction_id", "kind"), \
            CHECK (kind <> 'purchase' OR (amount > 0 AND transaction_id IS NOT NULL)), \
            CHECK (kind <> 'refund' OR (amount < 0 AND transaction_id IS NOT NULL)))
            """,
            #"CREATE INDEX "ledger_entries_on_account" ON "ledger_entries"("account_id", "id")"#,
            """
            CREATE TABLE "notification_outbox" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0), \
            "type" TEXT NOT NULL CHECK (type IN ('receipt.credited', 'receipt.rejected', 'receipt.dead', \
            'purchase.refunded', 'subscription.renewed', 'subscription.expired')), \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "body" TEXT NOT NULL CHECK (json_valid(body)), \
            "status" TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')), \
            "attempts" INTEGER NOT NULL CHECK (attempts >= 0) DEFAULT 0, \
            "next_attempt_at" DATETIME, \
            "last_error" TEXT, \
            "created_at" DATETIME NOT NULL, \
            "delivered_at" DATETIME, \
            CHECK (status <> 'pending' OR next_attempt_at IS NOT NULL), \
            CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)))
            """,
            #"CREATE INDEX "notification_outbox_due" ON "notification_outbox"("status", "next_attempt_at")"#,
            // A receipt ends once, so it announces its end once.
            """
            CREATE UNIQUE INDEX "notification_outbox_one_final_per_receipt" ON "notification_outbox"("receipt_id") \
            WHERE "type" IN ('receipt.credited', 'receipt.rejected', 'receipt.dead')
            """,
        ],
        postgres: [])
}
