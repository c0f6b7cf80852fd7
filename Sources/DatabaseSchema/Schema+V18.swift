extension Schema {
    /// v18: every row that holds a dedupe key or a store's identity carries its app, and each
    /// unique key includes it (issue 53). Rows keyed by an account carry their app in the
    /// account's id already (`<app>/<account>`, bare for the default app).
    ///
    /// - `app_account_tokens` is keyed by (`app`, `token`): a token is one app's, so another
    ///   app's purchase carrying it binds none of its accounts, and ordering with a UUID another
    ///   app uses tells nothing. `app` must be the app of `account_id` (a CHECK).
    /// - `store_notifications` has `app`, the app whose credential proved it; its payload hash,
    ///   the store's message id and its `notificationUUID` are unique within that app (two
    ///   apps' Pub/Sub topics may number their messages alike). SQLite rebuilds the table (a
    ///   column's UNIQUE cannot be dropped), under its own name; the receipts' id trigger that
    ///   reads it is made again around the rebuild.
    /// - `store_transactions` has `app`, the app of the event that first recorded it; its
    ///   `transaction_id` stays the key, so one store transaction belongs to one app.
    ///
    /// Rows written before are the app of their account (the default app's: `''` for a bare
    /// id); a notification, and a transaction no account holds, the default app's, as every
    /// one was before apps were proven.
    static let version18 = SchemaMigration(
        version: 18, summary: "each row's app: tokens, notifications and transactions keyed within their app",
        sqlite: [
            // Orders name their token by value: the app of an order's token is its account's,
            // and a token alone no longer names one row.
            """
            CREATE TABLE "orders_v18" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "product_id" TEXT NOT NULL CHECK (length(product_id) > 0), \
            "apple_product_id" TEXT NOT NULL, \
            "app_account_token" TEXT NOT NULL CHECK (length(app_account_token) = 36), \
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
            """
            INSERT INTO orders_v18 (
                rowid, id, account_id, product_id, apple_product_id, app_account_token, first_purchase, status,
                created_at, expires_at, closed_at, close_reason, receipt_id, transaction_id, credited_product_id)
            SELECT rowid, id, account_id, product_id, apple_product_id, app_account_token, first_purchase, status,
                created_at, expires_at, closed_at, close_reason, receipt_id, transaction_id, credited_product_id
            FROM orders
            """,
            #"DROP TABLE "orders""#,
            #"ALTER TABLE "orders_v18" RENAME TO "orders""#,
            """
            CREATE UNIQUE INDEX "orders_one_open_per_account_product" ON "orders"("account_id", "product_id") \
            WHERE "status" = 'open'
            """,
            #"CREATE INDEX "orders_on_account_product_created" ON "orders"("account_id", "product_id", "created_at")"#,
            """
            CREATE TABLE "app_account_tokens_v18" (\
            "token" TEXT NOT NULL CHECK (length(token) = 36 AND token = lower(token)), \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "created_at" DATETIME NOT NULL, \
            "app" TEXT NOT NULL DEFAULT '', \
            PRIMARY KEY ("app", "token"), \
            CHECK (app = CASE WHEN instr(account_id, '/') > 1 THEN substr(account_id, 1, instr(account_id, '/') - 1) \
            ELSE '' END))
            """,
            """
            INSERT INTO app_account_tokens_v18 (token, account_id, created_at, app)
            SELECT token, account_id, created_at, \(sqliteAppOf("account_id")) FROM app_account_tokens
            """,
            #"DROP TABLE "app_account_tokens""#,
            #"ALTER TABLE "app_account_tokens_v18" RENAME TO "app_account_tokens""#,
            #"CREATE INDEX "app_account_tokens_on_account" ON "app_account_tokens"("account_id", "created_at")"#,
            #"CREATE INDEX "app_account_tokens_on_token" ON "app_account_tokens"("token")"#,
            #"DROP TRIGGER "receipts_id_is_not_a_notification""#,
            """
            CREATE TABLE "store_notifications_v18" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            "payload" TEXT NOT NULL CHECK (length(payload) > 0), \
            "payload_hash" TEXT NOT NULL CHECK (length(payload_hash) = 64 AND payload_hash NOT GLOB '*[^0-9a-f]*'), \
            "status" TEXT NOT NULL CHECK (status IN ('received', 'validating', 'retrying', 'applied', 'rejected', \
            'dead')), \
            "reason" TEXT, \
            "attempts" INTEGER NOT NULL CHECK (attempts >= 0) DEFAULT 0, \
            "notification_uuid" TEXT CHECK (length(notification_uuid) > 0), \
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
            "app" TEXT NOT NULL DEFAULT '', \
            CHECK (status NOT IN ('rejected', 'dead') OR reason IS NOT NULL), \
            CHECK (notification_uuid IS NULL OR status = 'applied'))
            """,
            """
            INSERT INTO store_notifications_v18 (
                rowid, id, payload, payload_hash, status, reason, attempts, notification_uuid, type, subtype,
                environment, signed_date, transaction_id, original_transaction_id, product_id, account_id, created_at,
                updated_at, published_at, store, message_id, app)
            SELECT rowid, id, payload, payload_hash, status, reason, attempts, notification_uuid, type, subtype,
                environment, signed_date, transaction_id, original_transaction_id, product_id, account_id, created_at,
                updated_at, published_at, store, message_id, ''
            FROM store_notifications
            """,
            #"DROP TABLE "store_notifications""#,
            #"ALTER TABLE "store_notifications_v18" RENAME TO "store_notifications""#,
            """
            CREATE UNIQUE INDEX "store_notifications_payload_hash" ON "store_notifications"("app", "payload_hash")
            """,
            """
            CREATE UNIQUE INDEX "store_notifications_notification_uuid" ON "store_notifications"("app", \
            "notification_uuid")
            """,
            #"CREATE UNIQUE INDEX "store_notifications_message_id" ON "store_notifications"("app", "message_id")"#,
            // The uuid across apps: the fulfiller reads a batch's uuids at once.
            """
            CREATE INDEX "store_notifications_on_uuid" ON "store_notifications"("notification_uuid") \
            WHERE "notification_uuid" IS NOT NULL
            """,
            """
            CREATE INDEX "store_notifications_unpublished" ON "store_notifications"("created_at") \
            WHERE "published_at" IS NULL
            """,
            """
            CREATE INDEX "store_notifications_consumption_requests" ON "store_notifications"("created_at") \
            WHERE "type" = 'CONSUMPTION_REQUEST'
            """,
            """
            CREATE INDEX "store_notifications_refund_reviews" ON "store_notifications"("created_at") \
            WHERE type = 'PENDING_REFUND_REVIEW'
            """,
            """
            CREATE INDEX "store_notifications_rejected" ON "store_notifications"("updated_at") \
            WHERE "status" = 'rejected'
            """,
            """
            CREATE INDEX "store_notifications_on_account" ON "store_notifications"("account_id") \
            WHERE "account_id" IS NOT NULL
            """,
            """
            CREATE INDEX "store_notifications_on_transaction" ON "store_notifications"("transaction_id") \
            WHERE "transaction_id" IS NOT NULL
            """,
            """
            CREATE INDEX "store_notifications_on_original" ON "store_notifications"("original_transaction_id") \
            WHERE "original_transaction_id" IS NOT NULL
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
            #"ALTER TABLE "store_transactions" ADD COLUMN "app" TEXT NOT NULL DEFAULT ''"#,
            "UPDATE store_transactions SET app = \(sqliteAppOf("account_id")) WHERE account_id IS NOT NULL",
            """
            UPDATE store_transactions SET app = COALESCE(
                (SELECT \(sqliteAppOf("r.account_id")) FROM receipts r WHERE r.id = store_transactions.receipt_id), '')
            WHERE account_id IS NULL
            """,
        ],
        postgres: [
            "ALTER TABLE orders DROP CONSTRAINT orders_app_account_token_fkey",
            "ALTER TABLE orders ADD CONSTRAINT orders_app_account_token_check CHECK (length(app_account_token) = 36)",
            "ALTER TABLE app_account_tokens ADD COLUMN app TEXT NOT NULL DEFAULT ''",
            "UPDATE app_account_tokens SET app = \(postgresAppOf("account_id"))",
            "ALTER TABLE app_account_tokens DROP CONSTRAINT app_account_tokens_pkey",
            "ALTER TABLE app_account_tokens ADD PRIMARY KEY (app, token)",
            """
            ALTER TABLE app_account_tokens ADD CONSTRAINT app_account_tokens_app_check
              CHECK (app = \(postgresAppOf("account_id")))
            """,
            "CREATE INDEX app_account_tokens_on_token ON app_account_tokens (token)",
            "ALTER TABLE store_notifications ADD COLUMN app TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE store_notifications DROP CONSTRAINT apple_notifications_payload_hash_key",
            "ALTER TABLE store_notifications DROP CONSTRAINT apple_notifications_notification_uuid_key",
            "ALTER TABLE store_notifications DROP CONSTRAINT apple_notifications_message_id_key",
            "CREATE UNIQUE INDEX store_notifications_payload_hash ON store_notifications (app, payload_hash)",
            "CREATE UNIQUE INDEX store_notifications_notification_uuid ON store_notifications (app, notification_uuid)",
            "CREATE UNIQUE INDEX store_notifications_message_id ON store_notifications (app, message_id)",
            """
            CREATE INDEX store_notifications_on_uuid ON store_notifications (notification_uuid)
              WHERE notification_uuid IS NOT NULL
            """,
            "ALTER TABLE store_transactions ADD COLUMN app TEXT NOT NULL DEFAULT ''",
            "UPDATE store_transactions SET app = \(postgresAppOf("account_id")) WHERE account_id IS NOT NULL",
            """
            UPDATE store_transactions t SET app = \(postgresAppOf("r.account_id"))
            FROM receipts r WHERE r.id = t.receipt_id AND t.account_id IS NULL
            """,
        ])

    /// The app (``AppScope/key``) of the stored account id in `column`, in SQLite's SQL.
    private static func sqliteAppOf(_ column: String) -> String {
        "CASE WHEN instr(\(column), '/') > 1 THEN substr(\(column), 1, instr(\(column), '/') - 1) ELSE '' END"
    }

    /// The same in PostgreSQL's.
    private static func postgresAppOf(_ column: String) -> String {
        "CASE WHEN strpos(\(column), '/') > 1 THEN split_part(\(column), '/', 1) ELSE '' END"
    }
}
