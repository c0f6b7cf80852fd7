extension Schema {
    /// v7: `manual_adjustments`, an operator's grants and revokes (``AdjustmentRepository``): the
    /// currency and signed amount, or the entitlement and its end; the reason, the operator,
    /// the balance after and what policy `clamp` wrote off. Its ledger entries carry
    /// `adjustment:<id>` as their transaction. The idempotency key is unique: a double
    /// click counts once. The outbox's `type` check gains `account.adjusted` and
    /// `entitlement.granted` (SQLite cannot alter a check: the table is rebuilt, rowids kept).
    static let version7 = SchemaMigration(
        version: 7, summary: "operators' grants and revokes",
        sqlite: [
            // The outbox, its `type` check widened; rowids kept, its indexes made again.
            """
            CREATE TABLE "notification_outbox_rebuilt" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0), \
            "type" TEXT NOT NULL CHECK (type IN ('receipt.credited', 'receipt.rejected', 'receipt.dead', \
            'purchase.refunded', 'purchase.refund_reversed', 'subscription.renewed', 'subscription.expired', \
            'account.adjusted', 'entitlement.granted')), \
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
            // Its indexes, as they were.
            #"CREATE INDEX "notification_outbox_due" ON "notification_outbox"("status", "next_attempt_at")"#,
            """
            CREATE UNIQUE INDEX "notification_outbox_one_per_notification" \
            ON "notification_outbox"("notification_id", "type") WHERE "notification_id" IS NOT NULL
            """,
            """
            CREATE UNIQUE INDEX "notification_outbox_one_final_per_receipt" ON "notification_outbox"("receipt_id") \
            WHERE "type" IN ('receipt.credited', 'receipt.rejected')
            """,
            """
            CREATE TABLE "manual_adjustments" (\
            "id" TEXT PRIMARY KEY NOT NULL, \
            "idempotency_key" TEXT NOT NULL UNIQUE, \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "kind" TEXT NOT NULL CHECK (kind IN ('currency', 'entitlement')), \
            "currency" TEXT, \
            "amount" INTEGER, \
            "entitlement" TEXT, \
            "expires_at" DATETIME, \
            "reason" TEXT NOT NULL CHECK (length(trim(reason)) > 0), \
            "operator" TEXT NOT NULL CHECK (length(operator) > 0), \
            "balance" INTEGER, \
            "written_off" INTEGER, \
            "created_at" DATETIME NOT NULL, \
            CHECK (kind <> 'currency' OR (currency IS NOT NULL AND amount IS NOT NULL AND amount <> 0)), \
            CHECK (kind <> 'entitlement' OR (entitlement IS NOT NULL AND expires_at IS NOT NULL)))
            """,
            #"CREATE INDEX "manual_adjustments_on_account" ON "manual_adjustments"("account_id", "created_at")"#,
        ],
        postgres: [
            "ALTER TABLE notification_outbox DROP CONSTRAINT notification_outbox_type_check",
            """
            ALTER TABLE notification_outbox ADD CONSTRAINT notification_outbox_type_check
              CHECK (type IN ('receipt.credited', 'receipt.rejected', 'receipt.dead', 'purchase.refunded',
                'purchase.refund_reversed', 'subscription.renewed', 'subscription.expired', 'account.adjusted',
                'entitlement.granted'))
            """,
            """
            CREATE TABLE manual_adjustments (
              id TEXT PRIMARY KEY,
              idempotency_key TEXT NOT NULL UNIQUE,
              account_id TEXT NOT NULL REFERENCES accounts(id),
              kind TEXT NOT NULL CHECK (kind IN ('currency', 'entitlement')),
              currency TEXT,
              amount BIGINT,
              entitlement TEXT,
              expires_at TIMESTAMPTZ,
              reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
              operator TEXT NOT NULL CHECK (length(operator) > 0),
              balance BIGINT,
              written_off BIGINT,
              created_at TIMESTAMPTZ NOT NULL,
              CHECK (kind <> 'currency' OR (currency IS NOT NULL AND amount IS NOT NULL AND amount <> 0)),
              CHECK (kind <> 'entitlement' OR (entitlement IS NOT NULL AND expires_at IS NOT NULL)))
            """,
            "CREATE INDEX manual_adjustments_on_account ON manual_adjustments (account_id, created_at)",
        ])
}
