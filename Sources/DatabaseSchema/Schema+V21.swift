extension Schema {
    /// v21: the revenue ledger beside the coin ledger (issue 57).
    ///
    /// `revenue_entries`: one row per payment (a purchase or a renewal) and per take-back of it
    /// (a refund, a revocation, negative) or reversal, written in the transaction that credits
    /// or takes back; never updated. Money in whole minor units of `currency` (ISO 4217).
    /// `UNIQUE (transaction_id, kind, step)`: a second guard against counting a payment, or a
    /// take-back step, twice. Read in ledger order (ids rise with time: a span is a range of the
    /// key, ``SQLSession/firstID(of:datedBy:since:slack:)``), one app's by `(app, id)`; by
    /// transaction for take-backs.
    ///
    /// `revenue_days`: the ledger summed by UTC day, app, store and currency, added to in the
    /// same transaction as the entries (never a second truth: `iap revenue rebuild` writes it
    /// again from the entries). What the console's charts read: a year is a few thousand rows
    /// of its primary key, whatever the ledger's size.
    static let version21 = SchemaMigration(
        version: 21, summary: "the revenue ledger",
        sqlite: [
            """
            CREATE TABLE "revenue_entries" (\
            "id" INTEGER PRIMARY KEY AUTOINCREMENT, \
            "app" TEXT NOT NULL DEFAULT '', \
            "store" TEXT NOT NULL, \
            "account_id" TEXT NOT NULL, \
            "transaction_id" TEXT NOT NULL, \
            "original_transaction_id" TEXT NOT NULL, \
            "product_id" TEXT NOT NULL, \
            "kind" TEXT NOT NULL CHECK (kind IN ('purchase', 'renewal', 'refund', 'revocation', 'reversal')), \
            "currency" TEXT NOT NULL CHECK (length(currency) = 3), \
            "gross" INTEGER NOT NULL, \
            "proceeds" INTEGER NOT NULL, \
            "commission_bp" INTEGER NOT NULL CHECK (commission_bp BETWEEN 0 AND 10000), \
            "country" TEXT, \
            "estimated" BOOLEAN NOT NULL, \
            "subscription" BOOLEAN NOT NULL, \
            "receipt_id" TEXT, \
            "notification_id" TEXT, \
            "step" INTEGER NOT NULL DEFAULT 0, \
            "created_at" DATETIME NOT NULL, \
            UNIQUE ("transaction_id", "kind", "step"), \
            CHECK (kind NOT IN ('purchase', 'renewal', 'reversal') OR gross >= 0), \
            CHECK (kind NOT IN ('refund', 'revocation') OR gross < 0))
            """,
            #"CREATE INDEX "revenue_entries_on_app" ON "revenue_entries"("app", "id")"#,
            #"CREATE INDEX "revenue_entries_on_transaction" ON "revenue_entries"("transaction_id")"#,
            #"CREATE INDEX "revenue_entries_on_original" ON "revenue_entries"("original_transaction_id")"#,
            """
            CREATE TABLE "revenue_days" (\
            "day" TEXT NOT NULL CHECK (length(day) = 10), \
            "app" TEXT NOT NULL, \
            "store" TEXT NOT NULL, \
            "currency" TEXT NOT NULL CHECK (length(currency) = 3), \
            "payments" INTEGER NOT NULL, \
            "paid" INTEGER NOT NULL, \
            "take_backs" INTEGER NOT NULL, \
            "given_back" INTEGER NOT NULL, \
            "proceeds" INTEGER NOT NULL, \
            "estimated" INTEGER NOT NULL, \
            "starts" INTEGER NOT NULL DEFAULT 0, \
            "trials" INTEGER NOT NULL DEFAULT 0, \
            "renewals" INTEGER NOT NULL DEFAULT 0, \
            "conversions" INTEGER NOT NULL DEFAULT 0, \
            PRIMARY KEY ("day", "app", "store", "currency"))
            """,
        ],
        postgres: [
            """
            CREATE TABLE revenue_entries (\
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
            app TEXT NOT NULL DEFAULT '', \
            store TEXT NOT NULL, \
            account_id TEXT NOT NULL, \
            transaction_id TEXT NOT NULL, \
            original_transaction_id TEXT NOT NULL, \
            product_id TEXT NOT NULL, \
            kind TEXT NOT NULL CHECK (kind IN ('purchase', 'renewal', 'refund', 'revocation', 'reversal')), \
            currency TEXT NOT NULL CHECK (length(currency) = 3), \
            gross BIGINT NOT NULL, \
            proceeds BIGINT NOT NULL, \
            commission_bp INTEGER NOT NULL CHECK (commission_bp BETWEEN 0 AND 10000), \
            country TEXT, \
            estimated BOOLEAN NOT NULL, \
            subscription BOOLEAN NOT NULL, \
            receipt_id TEXT, \
            notification_id TEXT, \
            step INTEGER NOT NULL DEFAULT 0, \
            created_at TIMESTAMPTZ NOT NULL, \
            UNIQUE (transaction_id, kind, step), \
            CHECK (kind NOT IN ('purchase', 'renewal', 'reversal') OR gross >= 0), \
            CHECK (kind NOT IN ('refund', 'revocation') OR gross < 0))
            """,
            "CREATE INDEX revenue_entries_on_app ON revenue_entries (app, id)",
            "CREATE INDEX revenue_entries_on_transaction ON revenue_entries (transaction_id)",
            "CREATE INDEX revenue_entries_on_original ON revenue_entries (original_transaction_id)",
            """
            CREATE TABLE revenue_days (\
            day TEXT NOT NULL CHECK (length(day) = 10), \
            app TEXT NOT NULL, \
            store TEXT NOT NULL, \
            currency TEXT NOT NULL CHECK (length(currency) = 3), \
            payments INTEGER NOT NULL, \
            paid BIGINT NOT NULL, \
            take_backs INTEGER NOT NULL, \
            given_back BIGINT NOT NULL, \
            proceeds BIGINT NOT NULL, \
            estimated INTEGER NOT NULL, \
            starts INTEGER NOT NULL DEFAULT 0, \
            trials INTEGER NOT NULL DEFAULT 0, \
            renewals INTEGER NOT NULL DEFAULT 0, \
            conversions INTEGER NOT NULL DEFAULT 0, \
            PRIMARY KEY (day, app, store, currency))
            """,
        ])
}
