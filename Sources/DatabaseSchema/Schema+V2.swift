extension Schema {
    /// v2: App Store Server Notifications V2 and what they do to accounts.
    ///
    /// - `apple_notifications`: every notification Apple posted, from intake to its final
    ///   status; `payload_hash` makes Apple's resends one row, `notification_uuid` (set when
    ///   applied) makes one notification apply once.
    /// - `apple_transactions` is rebuilt so that a transaction can be recorded without an
    ///   account or a receipt (refunded before it was credited, or credited by a renewal
    ///   notification), and says which entitlement it granted.
    /// - `ledger_entries` is rebuilt for the kinds `revoke` and `refund_reversal`, the
    ///   notification that posted an entry, and "one debit per transaction" in the schema.
    /// - `receipt_transactions` is rebuilt for the outcome `bound_to_another_account`.
    /// - `notification_outbox` is rebuilt for `purchase.refund_reversed` and the notification
    ///   an event announces.
    /// - Receipt and notification ids never collide (triggers), so a verdict's id names one row.
    ///
    /// Tables whose CHECKs change are rebuilt (SQLite cannot alter a constraint); the
    /// migrator runs it with foreign keys off and checks them all before it commits.
    /// PostgreSQL: see ``version1``.
    static let version2 = SchemaMigration(
        version: 2, summary: "App Store Server Notifications V2, refunds and renewals",
        sqlite: [
            // `notification_uuid`: Apple's id, known once verified; set only on the row that applied it.
            // `account_id`: the account it changed, or the subscription's account it concerns.
            """
            CREATE TABLE "apple_notifications" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            "payload" TEXT NOT NULL CHECK (length(payload) > 0), \
            "payload_hash" TEXT NOT NULL UNIQUE CHECK (length(payload_hash) = 64 AND payload_hash NOT GLOB \
            '*[^0-9a-f]*'), \
            "status" TEXT NOT NULL CHECK (status IN ('received', 'validating', 'retrying', 'applied', 'rejected', \
            'dead')), \
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
            CHECK (status NOT IN ('rejected', 'dead') OR reason IS NOT NULL), \
            CHECK (notification_uuid IS NULL OR status = 'applied'))
            """,
            """
            CREATE INDEX "apple_notifications_unpublished" ON "apple_notifications"("created_at") \
            WHERE "published_at" IS NULL
            """,
            """
            CREATE INDEX "apple_notifications_consumption_requests" ON "apple_notifications"("created_at") \
            WHERE "type" = 'CONSUMPTION_REQUEST'
            """,
            // A verdict names its row by id alone (a dead letter carries nothing else).
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
            // `receipt_id`, `notification_id`: what first carried it, a receipt or a notification (a renewal,
            // a refund); `account_id`: the account it credited, NULL when it never credited anyone;
            // `entitlement`: the entitlement its credit granted or extended.
            """
            CREATE TABLE "apple_transactions_v2" (\
            "transaction_id" TEXT PRIMARY KEY NOT NULL CHECK (length(transaction_id) > 0), \
            "original_transaction_id" TEXT NOT NULL, \
            "product_id" TEXT NOT NULL, \
            "quantity" INTEGER NOT NULL CHECK (quantity >= 1), \
            "environment" TEXT, \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "notification_id" TEXT REFERENCES "apple_notifications"("id"), \
            "account_id" TEXT REFERENCES "accounts"("id"), \
            "purchase_date" DATETIME, \
            "expires_date" DATETIME, \
            "cancellation_date" DATETIME, \
            "state" TEXT NOT NULL CHECK (state IN ('credited', 'refunded', 'revoked', 'unpaid')), \
            "entitlement" TEXT CHECK (length(entitlement) > 0), \
            "created_at" DATETIME NOT NULL, \
            "updated_at" DATETIME NOT NULL, \
            CHECK (state <> 'credited' OR account_id IS NOT NULL), \
            CHECK (receipt_id IS NOT NULL OR notification_id IS NOT NULL))
            """,
            """
            INSERT INTO apple_transactions_v2 (
                transaction_id, original_transaction_id, product_id, quantity, environment, receipt_id,
                notification_id, account_id, purchase_date, expires_date, cancellation_date, state, entitlement,
                created_at, updated_at)
            SELECT a.transaction_id, a.original_transaction_id, a.product_id, a.quantity, a.environment,
                a.receipt_id, NULL, a.account_id, a.purchase_date, a.expires_date, a.cancellation_date, a.state,
                (SELECT r.entitlement FROM receipt_transactions r
                 WHERE r.receipt_id = a.receipt_id AND r.transaction_id = a.transaction_id
                    AND r.outcome = 'credited'),
                a.created_at, a.updated_at
            FROM apple_transactions a
            """,
            #"DROP TABLE "apple_transactions""#,
            #"ALTER TABLE "apple_transactions_v2" RENAME TO "apple_transactions""#,
            #"CREATE INDEX "apple_transactions_on_receipt" ON "apple_transactions"("receipt_id")"#,
            // Renewals find the account a subscription is bound to through its first transaction.
            """
            CREATE INDEX "apple_transactions_on_original" \
            ON "apple_transactions"("original_transaction_id", "created_at")
            """,
            // `receipt_id`, `notification_id`: what posted it, the receipt or the Apple notification being
            // applied. UNIQUE (transaction_id, kind): the second guard against double credit (and double refund).
            """
            CREATE TABLE "ledger_entries_v2" (\
            "id" INTEGER PRIMARY KEY AUTOINCREMENT, \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "currency" TEXT NOT NULL CHECK (length(currency) > 0), \
            "amount" INTEGER NOT NULL CHECK (amount <> 0), \
            "kind" TEXT NOT NULL CHECK (kind IN ('purchase', 'refund', 'revoke', 'refund_reversal', 'adjustment')), \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "notification_id" TEXT REFERENCES "apple_notifications"("id"), \
            "transaction_id" TEXT, \
            "created_at" DATETIME NOT NULL, \
            UNIQUE ("transaction_id", "kind"), \
            CHECK (kind <> 'purchase' OR (amount > 0 AND transaction_id IS NOT NULL)), \
            CHECK (kind NOT IN ('refund', 'revoke') OR (amount < 0 AND transaction_id IS NOT NULL)), \
            CHECK (kind <> 'refund_reversal' OR (amount > 0 AND transaction_id IS NOT NULL)))
            """,
            """
            INSERT INTO ledger_entries_v2 (
                id, account_id, currency, amount, kind, receipt_id, notification_id, transaction_id, created_at)
            SELECT id, account_id, currency, amount, kind, receipt_id, NULL, transaction_id, created_at
            FROM ledger_entries
            """,
            #"DROP TABLE "ledger_entries""#,
            #"ALTER TABLE "ledger_entries_v2" RENAME TO "ledger_entries""#,
            #"CREATE INDEX "ledger_entries_on_account" ON "ledger_entries"("account_id", "id")"#,
            // A transaction is taken back once: refunded or revoked, not both, not twice.
            """
            CREATE UNIQUE INDEX "ledger_entries_one_debit_per_transaction" ON "ledger_entries"("transaction_id") \
            WHERE "kind" IN ('refund', 'revoke')
            """,
            """
            CREATE TABLE "receipt_transactions_v2" (\
            "receipt_id" TEXT NOT NULL REFERENCES "receipts"("id"), \
            "transaction_id" TEXT NOT NULL CHECK (length(transaction_id) > 0), \
            "product_id" TEXT NOT NULL, \
            "outcome" TEXT NOT NULL CHECK (outcome IN ('credited', 'already_credited', 'unknown_product', 'refunded', \
            'bound_to_another_account')), \
            "currency" TEXT, \
            "amount" INTEGER, \
            "entitlement" TEXT, \
            "expires_at" DATETIME, \
            PRIMARY KEY ("receipt_id", "transaction_id"), \
            CHECK ((currency IS NULL) = (amount IS NULL)), \
            CHECK (outcome <> 'credited' OR currency IS NOT NULL OR entitlement IS NOT NULL), \
            CHECK (outcome = 'credited' OR (currency IS NULL AND entitlement IS NULL)))
            """,
            // rowid order is the order a receipt listed its transactions: keep it.
            """
            INSERT INTO receipt_transactions_v2 (
                rowid, receipt_id, transaction_id, product_id, outcome, currency, amount, entitlement, expires_at)
            SELECT rowid, receipt_id, transaction_id, product_id, outcome, currency, amount, entitlement, expires_at
            FROM receipt_transactions
            """,
            #"DROP TABLE "receipt_transactions""#,
            #"ALTER TABLE "receipt_transactions_v2" RENAME TO "receipt_transactions""#,
            // `notification_id`: the Apple notification whose application this event announces.
            """
            CREATE TABLE "notification_outbox_v2" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0), \
            "type" TEXT NOT NULL CHECK (type IN ('receipt.credited', 'receipt.rejected', 'receipt.dead', \
            'purchase.refunded', 'purchase.refund_reversed', 'subscription.renewed', 'subscription.expired')), \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "notification_id" TEXT REFERENCES "apple_notifications"("id"), \
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
            // rowid breaks ties between events due at the same moment: keep it.
            """
            INSERT INTO notification_outbox_v2 (
                rowid, id, type, receipt_id, notification_id, account_id, body, status, attempts,
                next_attempt_at, last_error, created_at, delivered_at)
            SELECT rowid, id, type, receipt_id, NULL, account_id, body, status, attempts,
                next_attempt_at, last_error, created_at, delivered_at
            FROM notification_outbox
            """,
            #"DROP TABLE "notification_outbox""#,
            #"ALTER TABLE "notification_outbox_v2" RENAME TO "notification_outbox""#,
            #"CREATE INDEX "notification_outbox_due" ON "notification_outbox"("status", "next_attempt_at")"#,
            // A receipt ends once, so it announces its end once.
            """
            CREATE UNIQUE INDEX "notification_outbox_one_final_per_receipt" ON "notification_outbox"("receipt_id") \
            WHERE "type" IN ('receipt.credited', 'receipt.rejected', 'receipt.dead')
            """,
            // A notification applies once, so it announces each of its effects once.
            """
            CREATE UNIQUE INDEX "notification_outbox_one_per_notification" \
            ON "notification_outbox"("notification_id", "type") WHERE "notification_id" IS NOT NULL
            """,
        ],
        postgres: [])
}
