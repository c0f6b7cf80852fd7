extension Schema {
    /// v10: every store plugs in through one seam, so the tables say "store", not "Apple".
    ///
    /// - `apple_notifications` becomes `store_notifications`: its `store` names any store id
    ///   (`apple`, `google`, or a plug-in's: `huawei`, `stripe`).
    /// - `apple_transactions` becomes `store_transactions`, its `binding` taking
    ///   `store_account` (a purchase bound to the account its store names).
    /// - `receipts.kind` takes a plug-in's `store.kind` (`huawei.purchase`).
    /// - `notification_outbox.type` takes `purchase.credited`: a one-time purchase a store
    ///   reported without a receipt (a web shop's payment, Apple's `ONE_TIME_CHARGE`).
    /// - `store_confirmations`: what a plug-in store is owed once its purchase is credited
    ///   (Huawei's consumption confirmation), written in the credit's transaction and worked
    ///   off until the store says it is done (``ConfirmationRepository``).
    ///
    /// SQLite rebuilds the three tables (a CHECK cannot be altered), rowids kept; PostgreSQL
    /// renames them and swaps the checks.
    static let version10 = SchemaMigration(
        version: 10, summary: "store-neutral tables, plug-in stores and their confirmations",
        sqlite: version10SQLite,
        postgres: [
            "ALTER TABLE receipts DROP CONSTRAINT receipts_kind_check",
            """
            ALTER TABLE receipts ADD CONSTRAINT receipts_kind_check
              CHECK (kind IN ('legacy', 'storekit2', 'google_play') OR kind ~ '^[a-z0-9_]{1,32}\\.[a-z0-9_]{1,31}$')
            """,
            "ALTER TABLE apple_notifications RENAME TO store_notifications",
            "ALTER TABLE store_notifications DROP CONSTRAINT apple_notifications_store_check",
            "ALTER TABLE store_notifications ADD CONSTRAINT store_notifications_store_check CHECK (store ~ '^[a-z0-9_]{1,32}$')",
            "ALTER INDEX apple_notifications_unpublished RENAME TO store_notifications_unpublished",
            // The function behind both id triggers reads the tables by name: it is written anew.
            """
            CREATE OR REPLACE FUNCTION iap_id_is_not_taken() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_TABLE_NAME = 'receipts' AND EXISTS (SELECT 1 FROM store_notifications WHERE id = NEW.id) THEN
                RAISE EXCEPTION 'id is already a store notification''s' USING ERRCODE = 'check_violation';
              ELSIF TG_TABLE_NAME = 'store_notifications' AND EXISTS (SELECT 1 FROM receipts WHERE id = NEW.id) THEN
                RAISE EXCEPTION 'id is already a receipt''s' USING ERRCODE = 'check_violation';
              END IF;
              RETURN NEW;
            END $$
            """,
            """
            ALTER TRIGGER apple_notifications_id_is_not_a_receipt ON store_notifications
              RENAME TO store_notifications_id_is_not_a_receipt
            """,
            "ALTER INDEX apple_notifications_consumption_requests RENAME TO store_notifications_consumption_requests",
            "ALTER TABLE apple_transactions RENAME TO store_transactions",
            "ALTER TABLE store_transactions DROP CONSTRAINT apple_transactions_binding_check",
            """
            ALTER TABLE store_transactions ADD CONSTRAINT store_transactions_binding_check
              CHECK (binding IN ('order', 'app_account_token', 'original_transaction', 'submitter', 'store_account'))
            """,
            "ALTER INDEX apple_transactions_on_receipt RENAME TO store_transactions_on_receipt",
            "ALTER INDEX apple_transactions_on_original RENAME TO store_transactions_on_original",
            "ALTER INDEX apple_transactions_on_account_product RENAME TO store_transactions_on_account_product",
            """
            CREATE TABLE store_confirmations (
              store TEXT NOT NULL CHECK (store ~ '^[a-z0-9_]{1,32}$'),
              transaction_id TEXT NOT NULL CHECK (length(transaction_id) > 0),
              payload TEXT NOT NULL CHECK (length(payload) > 0),
              receipt_id TEXT REFERENCES receipts(id),
              status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
              attempts INTEGER NOT NULL DEFAULT 0,
              next_attempt_at TIMESTAMPTZ,
              last_error TEXT,
              created_at TIMESTAMPTZ NOT NULL,
              done_at TIMESTAMPTZ,
              PRIMARY KEY (store, transaction_id))
            """,
            "CREATE INDEX store_confirmations_due ON store_confirmations (status, next_attempt_at)",
            "ALTER TABLE notification_outbox DROP CONSTRAINT notification_outbox_type_check",
            """
            ALTER TABLE notification_outbox ADD CONSTRAINT notification_outbox_type_check
              CHECK (type IN ('receipt.credited', 'receipt.rejected', 'receipt.dead', 'purchase.credited',
                'purchase.refunded', 'purchase.refund_reversed', 'subscription.renewed', 'subscription.expired',
                'account.adjusted', 'entitlement.granted'))
            """,
        ])

    private static let version10SQLite: [String] = [
        // The triggers naming the tables go first and come back at the end (SQLite re-reads
        // every trigger when it renames a table).
        #"DROP TRIGGER "apple_notifications_id_is_not_a_receipt""#,
        #"DROP TRIGGER "receipts_id_is_not_a_notification""#,
        // `receipts`, its `kind` check widened.
        """
        CREATE TABLE "receipts_rebuilt" (\
        "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
        "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
        "kind" TEXT NOT NULL CHECK (kind IN ('legacy', 'storekit2', 'google_play') OR (length(kind) <= 64 \
        AND kind GLOB '[a-z0-9_]*.[a-z0-9_]*' AND kind NOT GLOB '*[^a-z0-9_.]*' AND kind NOT GLOB '*.*.*' \
        AND kind NOT GLOB '.*' AND kind NOT GLOB '*.')), \
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
        """
        INSERT INTO receipts_rebuilt (
            rowid, id, account_id, kind, payload, payload_hash, order_id, product_id, status, reason, attempts,
            environment, idempotency_key, request_hash, created_at, updated_at, published_at)
        SELECT rowid, id, account_id, kind, payload, payload_hash, order_id, product_id, status, reason, attempts,
            environment, idempotency_key, request_hash, created_at, updated_at, published_at
        FROM receipts
        """,
        #"DROP TABLE "receipts""#,
        #"ALTER TABLE "receipts_rebuilt" RENAME TO "receipts""#,
        #"CREATE UNIQUE INDEX "receipts_on_account_payload" ON "receipts"("account_id", "payload_hash")"#,
        """
        CREATE UNIQUE INDEX "receipts_on_account_idempotency_key" ON "receipts"("account_id", "idempotency_key") \
        WHERE "idempotency_key" IS NOT NULL
        """,
        #"CREATE INDEX "receipts_unpublished" ON "receipts"("created_at") WHERE "published_at" IS NULL"#,
        // The notifications, rebuilt under their old name (the tables that reference them
        // keep naming it), then renamed: SQLite renames those references with the table.
        """
        CREATE TABLE "notifications_rebuilt" (\
        "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
        "payload" TEXT NOT NULL CHECK (length(payload) > 0), \
        "payload_hash" TEXT NOT NULL UNIQUE CHECK (length(payload_hash) = 64 AND payload_hash NOT GLOB '*[^0-9a-f]*'), \
        "status" TEXT NOT NULL CHECK (status IN ('received', 'validating', 'retrying', 'applied', 'rejected', 'dead')), \
        "reason" TEXT, \
        "attempts" INTEGER NOT NULL CHECK (attempts >= 0) DEFAULT 0, \
        "notification_uuid" TEXT UNIQUE CHECK (length(notification_uuid) > 0), \
        "type" TEXT, \
        "subtype" TEXT, \
        "environment" TEXT, \
        "signed_date" DATETIME, \
        "transaction_id" TEXT, \
        "original_transaction_id" TEXT, \
        "product_id" TEXT, \
        "account_id" TEXT REFERENCES "accounts"("id"), \
        "created_at" DATETIME NOT NULL, \
        "updated_at" DATETIME NOT NULL, \
        "published_at" DATETIME, \
        "store" TEXT NOT NULL CHECK (length(store) BETWEEN 1 AND 32 AND store NOT GLOB '*[^a-z0-9_]*') \
        DEFAULT 'apple', \
        "message_id" TEXT CHECK (length(message_id) BETWEEN 1 AND 128), \
        CHECK (status NOT IN ('rejected', 'dead') OR reason IS NOT NULL), \
        CHECK (notification_uuid IS NULL OR status = 'applied'))
        """,
        """
        INSERT INTO notifications_rebuilt (
            rowid, id, payload, payload_hash, status, reason, attempts, notification_uuid, type, subtype, environment,
            signed_date, transaction_id, original_transaction_id, product_id, account_id, created_at, updated_at,
            published_at, store, message_id)
        SELECT rowid, id, payload, payload_hash, status, reason, attempts, notification_uuid, type, subtype,
            environment, signed_date, transaction_id, original_transaction_id, product_id, account_id, created_at,
            updated_at, published_at, store, message_id
        FROM apple_notifications
        """,
        #"DROP TABLE "apple_notifications""#,
        #"ALTER TABLE "notifications_rebuilt" RENAME TO "apple_notifications""#,
        #"ALTER TABLE "apple_notifications" RENAME TO "store_notifications""#,
        """
        CREATE INDEX "store_notifications_unpublished" ON "store_notifications"("created_at") \
        WHERE "published_at" IS NULL
        """,
        """
        CREATE INDEX "store_notifications_consumption_requests" ON "store_notifications"("created_at") \
        WHERE "type" = 'CONSUMPTION_REQUEST'
        """,
        #"CREATE UNIQUE INDEX "store_notifications_message_id" ON "store_notifications"("message_id")"#,
        // The transactions: nothing references them, so they are made under the new name.
        """
        CREATE TABLE "store_transactions" (\
        "transaction_id" TEXT PRIMARY KEY NOT NULL CHECK (length(transaction_id) > 0), \
        "original_transaction_id" TEXT NOT NULL, \
        "product_id" TEXT NOT NULL, \
        "quantity" INTEGER NOT NULL CHECK (quantity >= 1), \
        "environment" TEXT, \
        "receipt_id" TEXT REFERENCES "receipts"("id"), \
        "notification_id" TEXT REFERENCES "store_notifications"("id"), \
        "account_id" TEXT REFERENCES "accounts"("id"), \
        "purchase_date" DATETIME, \
        "expires_date" DATETIME, \
        "cancellation_date" DATETIME, \
        "state" TEXT NOT NULL CHECK (state IN ('credited', 'refunded', 'revoked', 'unpaid')), \
        "entitlement" TEXT CHECK (length(entitlement) > 0), \
        "created_at" DATETIME NOT NULL, \
        "updated_at" DATETIME NOT NULL, \
        "catalog_product_id" TEXT, \
        "order_id" TEXT REFERENCES "orders"("id"), \
        "binding" TEXT CHECK (binding IN ('order', 'app_account_token', 'original_transaction', 'submitter', \
        'store_account')), \
        CHECK (state <> 'credited' OR account_id IS NOT NULL), \
        CHECK (receipt_id IS NOT NULL OR notification_id IS NOT NULL))
        """,
        """
        INSERT INTO store_transactions (
            rowid, transaction_id, original_transaction_id, product_id, quantity, environment, receipt_id,
            notification_id, account_id, purchase_date, expires_date, cancellation_date, state, entitlement,
            created_at, updated_at, catalog_product_id, order_id, binding)
        SELECT rowid, transaction_id, original_transaction_id, product_id, quantity, environment, receipt_id,
            notification_id, account_id, purchase_date, expires_date, cancellation_date, state, entitlement,
            created_at, updated_at, catalog_product_id, order_id, binding
        FROM apple_transactions
        """,
        #"DROP TABLE "apple_transactions""#,
        #"CREATE INDEX "store_transactions_on_receipt" ON "store_transactions"("receipt_id")"#,
        """
        CREATE INDEX "store_transactions_on_original" ON "store_transactions"("original_transaction_id", \
        "created_at")
        """,
        """
        CREATE INDEX "store_transactions_on_account_product" ON "store_transactions"("account_id", \
        "catalog_product_id")
        """,
        """
        CREATE TRIGGER store_notifications_id_is_not_a_receipt BEFORE INSERT ON store_notifications
        WHEN EXISTS (SELECT 1 FROM receipts WHERE id = NEW.id)
        BEGIN SELECT RAISE(ABORT, 'id is already a receipt''s'); END
        """,
        """
        CREATE TRIGGER receipts_id_is_not_a_notification BEFORE INSERT ON receipts
        WHEN EXISTS (SELECT 1 FROM store_notifications WHERE id = NEW.id)
        BEGIN SELECT RAISE(ABORT, 'id is already a store notification''s'); END
        """,
        """
        CREATE TABLE "store_confirmations" (\
        "store" TEXT NOT NULL CHECK (length(store) BETWEEN 1 AND 32 AND store NOT GLOB '*[^a-z0-9_]*'), \
        "transaction_id" TEXT NOT NULL CHECK (length(transaction_id) > 0), \
        "payload" TEXT NOT NULL CHECK (length(payload) > 0), \
        "receipt_id" TEXT REFERENCES "receipts"("id"), \
        "status" TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')), \
        "attempts" INTEGER NOT NULL DEFAULT 0, \
        "next_attempt_at" DATETIME, \
        "last_error" TEXT, \
        "created_at" DATETIME NOT NULL, \
        "done_at" DATETIME, \
        PRIMARY KEY ("store", "transaction_id"))
        """,
        #"CREATE INDEX "store_confirmations_due" ON "store_confirmations"("status", "next_attempt_at")"#,
        // The outbox, its `type` check widened; rowids kept, its indexes made again.
        """
        CREATE TABLE "notification_outbox_rebuilt" (\
        "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0), \
        "type" TEXT NOT NULL CHECK (type IN ('receipt.credited', 'receipt.rejected', 'receipt.dead', \
        'purchase.credited', 'purchase.refunded', 'purchase.refund_reversed', 'subscription.renewed', \
        'subscription.expired', 'account.adjusted', 'entitlement.granted')), \
        "receipt_id" TEXT REFERENCES "receipts"("id"), \
        "notification_id" TEXT REFERENCES "store_notifications"("id"), \
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
        """
        INSERT INTO notification_outbox_rebuilt (
            rowid, id, type, receipt_id, notification_id, account_id, body, status, attempts, next_attempt_at,
            last_error, created_at, delivered_at)
        SELECT rowid, id, type, receipt_id, notification_id, account_id, body, status, attempts, next_attempt_at,
            last_error, created_at, delivered_at
        FROM notification_outbox
        """,
        #"DROP TABLE "notification_outbox""#,
        #"ALTER TABLE "notification_outbox_rebuilt" RENAME TO "notification_outbox""#,
        #"CREATE INDEX "notification_outbox_due" ON "notification_outbox"("status", "next_attempt_at")"#,
        """
        CREATE UNIQUE INDEX "notification_outbox_one_per_notification" ON "notification_outbox"("notification_id", \
        "type") WHERE "notification_id" IS NOT NULL
        """,
        """
        CREATE UNIQUE INDEX "notification_outbox_one_final_per_receipt" ON "notification_outbox"("receipt_id") \
        WHERE "type" IN ('receipt.credited', 'receipt.rejected')
        """,
    ]
}
