extension Schema {
    /// v14: a transaction taken back in steps (a second partial refund of one payment).
    ///
    /// Stripe adds refunds up (`amount_refunded`) and Google voids units of an order one
    /// refund at a time, so one transaction may now have several `refund`/`revoke` entries
    /// (and a `write_off` beside each). Until now the ledger allowed one debit per
    /// transaction (`ledger_entries_one_debit_per_transaction`, and the table's
    /// `UNIQUE (transaction_id, kind)`).
    ///
    /// - `ledger_entries.step`: for a debit and its write-off, which take-back of the
    ///   transaction it is (1, 2, ...); 0 for every other entry. Existing debits and
    ///   write-offs were each their transaction's only one: step 1.
    /// - `ledger_entries_one_debit_per_step`: one debit per (transaction, step). Why the step
    ///   number and not the share it reaches: a step is numbered from what the fulfiller read
    ///   (the debits before it, plus one), so two fulfillers applying the same refund at once,
    ///   or two different refunds of one transaction on the same books, both write the same
    ///   step and the second is refused, and is applied again on the books the first left,
    ///   where it takes only the difference (or nothing). Keyed by the share instead, a 30 %
    ///   and an 80 % refund read at once would both be written: 110 % taken back.
    /// - `ledger_entries_one_write_off_per_step`: a debit's write-off, once per step.
    /// - `ledger_entries_one_entry_per_transaction`: every other kind (a purchase, a
    ///   reversal, an adjustment) stays once per transaction, as the table's old constraint
    ///   kept it (named, not "every kind but the stepped ones": a new kind says which it is). SQLite cannot drop a table constraint: its table is rebuilt, rows and ids
    ///   kept.
    static let version14 = SchemaMigration(
        version: 14, summary: "a transaction taken back in steps: one debit per transaction and step",
        sqlite: [
            """
            CREATE TABLE "ledger_entries_v14" (\
            "id" INTEGER PRIMARY KEY AUTOINCREMENT, \
            "account_id" TEXT NOT NULL REFERENCES "accounts"("id"), \
            "currency" TEXT NOT NULL CHECK (length(currency) > 0), \
            "amount" INTEGER NOT NULL CHECK (amount <> 0), \
            "kind" TEXT NOT NULL CHECK (kind IN ('purchase', 'refund', 'revoke', 'refund_reversal', 'adjustment', \
            'write_off')), \
            "receipt_id" TEXT REFERENCES "receipts"("id"), \
            "notification_id" TEXT REFERENCES "store_notifications"("id"), \
            "transaction_id" TEXT, \
            "created_at" DATETIME NOT NULL, \
            "step" INTEGER NOT NULL DEFAULT 0, \
            CHECK (kind <> 'purchase' OR (amount > 0 AND transaction_id IS NOT NULL)), \
            CHECK (kind NOT IN ('refund', 'revoke') OR (amount < 0 AND transaction_id IS NOT NULL)), \
            CHECK (kind <> 'refund_reversal' OR (amount > 0 AND transaction_id IS NOT NULL)), \
            CHECK (kind <> 'write_off' OR (amount > 0 AND transaction_id IS NOT NULL)), \
            CHECK (step >= 0 AND (step = 0 OR kind IN ('refund', 'revoke', 'write_off'))))
            """,
            """
            INSERT INTO ledger_entries_v14 (
                id, account_id, currency, amount, kind, receipt_id, notification_id, transaction_id, created_at, step)
            SELECT id, account_id, currency, amount, kind, receipt_id, notification_id, transaction_id, created_at,
                CASE WHEN kind IN ('refund', 'revoke', 'write_off') THEN 1 ELSE 0 END
            FROM ledger_entries
            """,
            #"DROP TABLE "ledger_entries""#,
            #"ALTER TABLE "ledger_entries_v14" RENAME TO "ledger_entries""#,
            #"CREATE INDEX "ledger_entries_on_account" ON "ledger_entries"("account_id", "id")"#,
            """
            CREATE UNIQUE INDEX "ledger_entries_one_entry_per_transaction" ON "ledger_entries"("transaction_id", "kind") \
            WHERE "kind" IN ('purchase', 'refund_reversal', 'adjustment')
            """,
            """
            CREATE UNIQUE INDEX "ledger_entries_one_debit_per_step" ON "ledger_entries"("transaction_id", "step") \
            WHERE "kind" IN ('refund', 'revoke')
            """,
            """
            CREATE UNIQUE INDEX "ledger_entries_one_write_off_per_step" ON "ledger_entries"("transaction_id", "step") \
            WHERE "kind" = 'write_off'
            """,
        ],
        postgres: [
            "ALTER TABLE ledger_entries ADD COLUMN step BIGINT NOT NULL DEFAULT 0",
            "UPDATE ledger_entries SET step = 1 WHERE kind IN ('refund', 'revoke', 'write_off')",
            """
            ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_step_check
              CHECK (step >= 0 AND (step = 0 OR kind IN ('refund', 'revoke', 'write_off')))
            """,
            "ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_transaction_id_kind_key",
            "DROP INDEX ledger_entries_one_debit_per_transaction",
            """
            CREATE UNIQUE INDEX ledger_entries_one_entry_per_transaction ON ledger_entries (transaction_id, kind)
              WHERE kind IN ('purchase', 'refund_reversal', 'adjustment')
            """,
            """
            CREATE UNIQUE INDEX ledger_entries_one_debit_per_step ON ledger_entries (transaction_id, step)
              WHERE kind IN ('refund', 'revoke')
            """,
            """
            CREATE UNIQUE INDEX ledger_entries_one_write_off_per_step ON ledger_entries (transaction_id, step)
              WHERE kind = 'write_off'
            """,
        ])
}
