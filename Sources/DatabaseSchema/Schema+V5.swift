extension Schema {
    /// v5: refunds a balance cannot pay (the catalog's `negative_balance` policy),
    /// reconciliation with Apple's Notification History, and answers to its consumption
    /// requests.
    ///
    /// - `ledger_entries` is rebuilt for the kind `write_off`: beside a refund's whole debit,
    ///   the part the balance could not give, credited back (policy `clamp`); one per
    ///   transaction, like every credit.
    /// - `account_flags`: accounts a refund took below zero, or would have; once per
    ///   transaction and reason.
    /// - `reconciliation_runs`: each look at Apple's Notification History, its window and
    ///   what it found missing and fed; the next scheduled run starts where the last ended.
    /// - `consumption_consents`: whether a player consented to share consumption data with
    ///   Apple (the backend records it); `consumption_answers`: what we told Apple, or why not,
    ///   per `CONSUMPTION_REQUEST`.
    static let version5 = SchemaMigration(
        version: 5, summary: "write-offs, account flags, reconciliation runs and consumption answers",
        sqlite: [
            """
            CREATE TABLE "ledger_entries_v5" (\
            "id" INTEGER PRIMARY KEY AUTOINCREMENT, \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "currency" TEXT NOT NULL CHECK (length(currency) > 0), \
            "amount" INTEGER NOT NULL CHECK (amount <> 0), \
            "kind" TEXT NOT NULL CHECK (kind IN ('purchase', 'refund', 'revoke', 'refund_reversal', 'adjustment', \
            'write_off')), \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "notification_id" TEXT REFERENCES "apple_notifications"("id"), \
            "transaction_id" TEXT, \
            "created_at" DATETIME NOT NULL, \
            UNIQUE ("transaction_id", "kind"), \
            CHECK (kind <> 'purchase' OR (amount > 0 AND transaction_id IS NOT NULL)), \
            CHECK (kind NOT IN ('refund', 'revoke') OR (amount < 0 AND transaction_id IS NOT NULL)), \
            CHECK (kind <> 'refund_reversal' OR (amount > 0 AND transaction_id IS NOT NULL)), \
            CHECK (kind <> 'write_off' OR (amount > 0 AND transaction_id IS NOT NULL)))
            """,
            """
            INSERT INTO ledger_entries_v5 (
                id, account_id, currency, amount, kind, receipt_id, notification_id, transaction_id, created_at)
            SELECT id, account_id, currency, amount, kind, receipt_id, notification_id, transaction_id, created_at
            FROM ledger_entries
            """,
            #"DROP TABLE "ledger_entries""#,
            #"ALTER TABLE "ledger_entries_v5" RENAME TO "ledger_entries""#,
            #"CREATE INDEX "ledger_entries_on_account" ON "ledger_entries"("account_id", "id")"#,
            """
            CREATE UNIQUE INDEX "ledger_entries_one_debit_per_transaction" ON "ledger_entries"("transaction_id") \
            WHERE "kind" IN ('refund', 'revoke')
            """,
            // `amount`: for negative_balance the balance after the refund; for refund_shortfall what was
            // written off.
            """
            CREATE TABLE "account_flags" (\
            "id" INTEGER PRIMARY KEY AUTOINCREMENT, \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "reason" TEXT NOT NULL CHECK (reason IN ('negative_balance', 'refund_shortfall')), \
            "currency" TEXT NOT NULL CHECK (length(currency) > 0), \
            "amount" INTEGER NOT NULL, \
            "transaction_id" TEXT NOT NULL, \
            "notification_id" TEXT REFERENCES "apple_notifications"("id"), \
            "created_at" DATETIME NOT NULL, \
            UNIQUE ("transaction_id", "reason"))
            """,
            #"CREATE INDEX "account_flags_on_account" ON "account_flags"("account_id", "id")"#,
            """
            CREATE TABLE "reconciliation_runs" (\
            "id" INTEGER PRIMARY KEY AUTOINCREMENT, \
            "trigger" TEXT NOT NULL CHECK (trigger IN ('schedule', 'operator')), \
            "mode" TEXT NOT NULL CHECK (mode IN ('apply', 'dry_run')), \
            "window_start" DATETIME NOT NULL, \
            "window_end" DATETIME NOT NULL, \
            "examined" INTEGER NOT NULL CHECK (examined >= 0), \
            "missing" INTEGER NOT NULL CHECK (missing >= 0), \
            "fed" INTEGER NOT NULL CHECK (fed >= 0), \
            "error" TEXT, \
            "started_at" DATETIME NOT NULL, \
            "finished_at" DATETIME NOT NULL)
            """,
            #"CREATE INDEX "reconciliation_runs_on_end" ON "reconciliation_runs"("mode", "window_end")"#,
            """
            CREATE TABLE "consumption_consents" (\
            "account_id" TEXT PRIMARY KEY NOT NULL REFERENCES "accounts"("id"), \
            "status" TEXT NOT NULL CHECK (status IN ('granted', 'withdrawn')), \
            "recorded_at" DATETIME NOT NULL)
            """,
            // `body`, `apple_status`: the JSON sent to Apple, and Apple's HTTP status.
            """
            CREATE TABLE "consumption_answers" (\
            "notification_id" TEXT PRIMARY KEY NOT NULL REFERENCES "apple_notifications"("id"), \
            "transaction_id" TEXT NOT NULL, \
            "account_id" TEXT, \
            "status" TEXT NOT NULL CHECK (status IN ('sent', 'withheld', 'failed')), \
            "reason" TEXT, \
            "body" TEXT, \
            "apple_status" INTEGER, \
            "tenure_days" INTEGER, \
            "attempts" INTEGER NOT NULL CHECK (attempts >= 0), \
            "updated_at" DATETIME NOT NULL)
            """,
        ],
        postgres: [
            "ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check",
            """
            ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
              CHECK (kind IN ('purchase', 'refund', 'revoke', 'refund_reversal', 'adjustment', 'write_off'))
            """,
            """
            ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_write_off_check
              CHECK (kind <> 'write_off' OR (amount > 0 AND transaction_id IS NOT NULL))
            """,
            """
            CREATE TABLE account_flags (
              id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
              account_id TEXT NOT NULL REFERENCES accounts(id),
              reason TEXT NOT NULL CHECK (reason IN ('negative_balance', 'refund_shortfall')),
              currency TEXT NOT NULL CHECK (length(currency) > 0),
              amount BIGINT NOT NULL,
              transaction_id TEXT NOT NULL,
              notification_id TEXT REFERENCES apple_notifications(id),
              created_at TIMESTAMPTZ NOT NULL,
              UNIQUE (transaction_id, reason))
            """,
            "CREATE INDEX account_flags_on_account ON account_flags (account_id, id)",
            """
            CREATE TABLE reconciliation_runs (
              id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
              trigger TEXT NOT NULL CHECK (trigger IN ('schedule', 'operator')),
              mode TEXT NOT NULL CHECK (mode IN ('apply', 'dry_run')),
              window_start TIMESTAMPTZ NOT NULL,
              window_end TIMESTAMPTZ NOT NULL,
              examined BIGINT NOT NULL CHECK (examined >= 0),
              missing BIGINT NOT NULL CHECK (missing >= 0),
              fed BIGINT NOT NULL CHECK (fed >= 0),
              error TEXT,
              started_at TIMESTAMPTZ NOT NULL,
              finished_at TIMESTAMPTZ NOT NULL)
            """,
            "CREATE INDEX reconciliation_runs_on_end ON reconciliation_runs (mode, window_end)",
            """
            CREATE TABLE consumption_consents (
              account_id TEXT PRIMARY KEY REFERENCES accounts(id),
              status TEXT NOT NULL CHECK (status IN ('granted', 'withdrawn')),
              recorded_at TIMESTAMPTZ NOT NULL)
            """,
            """
            CREATE TABLE consumption_answers (
              notification_id TEXT PRIMARY KEY REFERENCES apple_notifications(id),
              transaction_id TEXT NOT NULL,
              account_id TEXT,
              status TEXT NOT NULL CHECK (status IN ('sent', 'withheld', 'failed')),
              reason TEXT,
              body TEXT,
              apple_status BIGINT,
              tenure_days BIGINT,
              attempts BIGINT NOT NULL CHECK (attempts >= 0),
              updated_at TIMESTAMPTZ NOT NULL)
            """,
        ])
}
