extension Schema {
    /// v8: receipts of a third kind, `google_play` (a Play purchase token, stored as its
    /// canonical JSON): the `kind` check is widened (the table is rebuilt).
    ///
    /// `google_acknowledgements`: what Google must be told after a Play purchase is credited
    /// (consumed, or acknowledged), one row per purchase token, written in the credit's
    /// transaction and worked off until Google says it is done (until v13 moved them into
    /// `store_confirmations`).
    static let version8 = SchemaMigration(
        version: 8, summary: "Google Play receipts and their acknowledgements",
        sqlite: [
            // The triggers that name `receipts` go first and come back after the rename: SQLite re-reads
            // every trigger when it renames a table, and one naming a table dropped meanwhile fails it.
            #"DROP TRIGGER "apple_notifications_id_is_not_a_receipt""#,
            #"DROP TRIGGER "receipts_id_is_not_a_notification""#,
            // `receipts`, its `kind` check widened; rowids kept.
            """
            CREATE TABLE "receipts_rebuilt" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "kind" TEXT NOT NULL CHECK (kind IN ('legacy', 'storekit2', 'google_play')), \
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
            // Its indexes and the triggers, as they were.
            #"CREATE UNIQUE INDEX "receipts_on_account_payload" ON "receipts"("account_id", "payload_hash")"#,
            """
            CREATE UNIQUE INDEX "receipts_on_account_idempotency_key" ON "receipts"("account_id", "idempotency_key") \
            WHERE "idempotency_key" IS NOT NULL
            """,
            #"CREATE INDEX "receipts_unpublished" ON "receipts"("created_at") WHERE "published_at" IS NULL"#,
            """
            CREATE TRIGGER apple_notifications_id_is_not_a_receipt BEFORE INSERT ON apple_notifications
            WHEN EXISTS (SELECT 1 FROM receipts WHERE id = NEW.id)
            BEGIN SELECT RAISE(ABORT, 'id is already a receipt''s'); END
            """,
            """
            CREATE TRIGGER receipts_id_is_not_a_notification BEFORE INSERT ON receipts
            WHEN EXISTS (SELECT 1 FROM apple_notifications WHERE id = NEW.id)
            BEGIN SELECT RAISE(ABORT, 'id is already an Apple notification''s'); END
            """,
            """
            CREATE TABLE "google_acknowledgements" (\
            "purchase_token" TEXT PRIMARY KEY NOT NULL CHECK (length(purchase_token) > 0), \
            "package_name" TEXT NOT NULL, \
            "product_id" TEXT NOT NULL, \
            "action" TEXT NOT NULL CHECK (action IN ('consume', 'acknowledge', 'acknowledge_subscription')), \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "status" TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')), \
            "attempts" INTEGER NOT NULL DEFAULT 0, \
            "next_attempt_at" DATETIME, \
            "last_error" TEXT, \
            "created_at" DATETIME NOT NULL, \
            "done_at" DATETIME)
            """,
            #"CREATE INDEX "google_acknowledgements_due" ON "google_acknowledgements"("status", "next_attempt_at")"#,
            // How far each app's voided purchases have been read (`GoogleVoidedRepository`).
            """
            CREATE TABLE "google_voided_polls" (\
            "package_name" TEXT PRIMARY KEY NOT NULL, \
            "polled_until" DATETIME NOT NULL)
            """,
        ],
        postgres: [
            "ALTER TABLE receipts DROP CONSTRAINT receipts_kind_check",
            "ALTER TABLE receipts ADD CONSTRAINT receipts_kind_check CHECK (kind IN ('legacy', 'storekit2', 'google_play'))",
            """
            CREATE TABLE google_acknowledgements (
              purchase_token TEXT PRIMARY KEY CHECK (length(purchase_token) > 0),
              package_name TEXT NOT NULL,
              product_id TEXT NOT NULL,
              action TEXT NOT NULL CHECK (action IN ('consume', 'acknowledge', 'acknowledge_subscription')),
              receipt_id TEXT REFERENCES receipts(id),
              status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
              attempts INTEGER NOT NULL DEFAULT 0,
              next_attempt_at TIMESTAMPTZ,
              last_error TEXT,
              created_at TIMESTAMPTZ NOT NULL,
              done_at TIMESTAMPTZ)
            """,
            "CREATE INDEX google_acknowledgements_due ON google_acknowledgements (status, next_attempt_at)",
            "CREATE TABLE google_voided_polls (package_name TEXT PRIMARY KEY, polled_until TIMESTAMPTZ NOT NULL)",
        ])
}
