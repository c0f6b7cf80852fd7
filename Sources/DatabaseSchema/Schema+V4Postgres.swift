extension Schema {
    /// PostgreSQL's first step: the same tables, keys and constraints as SQLite's v1-v4, at
    /// once. Money and counts are exact 64-bit integers; times are `timestamptz`; the
    /// uniqueness behind "credited once" (an Apple transaction, one debit per transaction, a
    /// notification, a webhook) is the database's constraints. `receipt_transactions.seq`
    /// stands for SQLite's rowid: the order a receipt listed its transactions.
    static let postgresV4: [String] = [
        """
        CREATE TABLE accounts (
          id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
          created_at TIMESTAMPTZ NOT NULL)
        """,
        """
        CREATE TABLE receipts (
          id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
          account_id TEXT NOT NULL REFERENCES accounts(id),
          kind TEXT NOT NULL CHECK (kind IN ('legacy', 'storekit2')),
          payload TEXT NOT NULL CHECK (length(payload) > 0),
          payload_hash TEXT NOT NULL CHECK (payload_hash \(hex64)),
          order_id TEXT,
          product_id TEXT,
          status TEXT NOT NULL CHECK (status IN ('received', 'validating', 'retrying', 'credited', 'rejected', 'dead')),
          reason TEXT,
          attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
          environment TEXT,
          idempotency_key TEXT CHECK (length(idempotency_key) BETWEEN 1 AND 255),
          request_hash TEXT NOT NULL CHECK (request_hash \(hex64)),
          created_at TIMESTAMPTZ NOT NULL,
          updated_at TIMESTAMPTZ NOT NULL,
          published_at TIMESTAMPTZ,
          CHECK (status NOT IN ('rejected', 'dead') OR reason IS NOT NULL))
        """,
        "CREATE UNIQUE INDEX receipts_on_account_payload ON receipts (account_id, payload_hash)",
        """
        CREATE UNIQUE INDEX receipts_on_account_idempotency_key ON receipts (account_id, idempotency_key)
          WHERE idempotency_key IS NOT NULL
        """,
        "CREATE INDEX receipts_unpublished ON receipts (created_at) WHERE published_at IS NULL",
        """
        CREATE TABLE balances (
          account_id TEXT NOT NULL REFERENCES accounts(id),
          currency TEXT NOT NULL CHECK (length(currency) > 0),
          amount BIGINT NOT NULL,
          PRIMARY KEY (account_id, currency))
        """,
        """
        CREATE TABLE entitlements (
          account_id TEXT NOT NULL REFERENCES accounts(id),
          name TEXT NOT NULL CHECK (length(name) > 0),
          expires_at TIMESTAMPTZ,
          original_transaction_id TEXT,
          updated_at TIMESTAMPTZ NOT NULL,
          PRIMARY KEY (account_id, name))
        """,
        "CREATE INDEX entitlements_on_expires_at ON entitlements (expires_at)",
        """
        CREATE TABLE apple_notifications (
          id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
          payload TEXT NOT NULL CHECK (length(payload) > 0),
          payload_hash TEXT NOT NULL UNIQUE CHECK (payload_hash \(hex64)),
          status TEXT NOT NULL CHECK (status IN ('received', 'validating', 'retrying', 'applied', 'rejected', 'dead')),
          reason TEXT,
          attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
          notification_uuid TEXT UNIQUE CHECK (length(notification_uuid) > 0),
          type TEXT,
          subtype TEXT,
          environment TEXT,
          signed_date TIMESTAMPTZ,
          transaction_id TEXT,
          original_transaction_id TEXT,
          product_id TEXT,
          account_id TEXT REFERENCES accounts(id),
          created_at TIMESTAMPTZ NOT NULL,
          updated_at TIMESTAMPTZ NOT NULL,
          published_at TIMESTAMPTZ,
          CHECK (status NOT IN ('rejected', 'dead') OR reason IS NOT NULL),
          CHECK (notification_uuid IS NULL OR status = 'applied'))
        """,
        "CREATE INDEX apple_notifications_unpublished ON apple_notifications (created_at) WHERE published_at IS NULL",
        """
        CREATE INDEX apple_notifications_consumption_requests ON apple_notifications (created_at)
          WHERE type = 'CONSUMPTION_REQUEST'
        """,
        // Receipts and Apple notifications share one id space (a verdict names either).
        """
        CREATE FUNCTION iap_id_is_not_taken() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_TABLE_NAME = 'receipts' AND EXISTS (SELECT 1 FROM apple_notifications WHERE id = NEW.id) THEN
            RAISE EXCEPTION 'id is already an Apple notification''s' USING ERRCODE = 'check_violation';
          ELSIF TG_TABLE_NAME = 'apple_notifications' AND EXISTS (SELECT 1 FROM receipts WHERE id = NEW.id) THEN
            RAISE EXCEPTION 'id is already a receipt''s' USING ERRCODE = 'check_violation';
          END IF;
          RETURN NEW;
        END $$
        """,
        """
        CREATE TRIGGER receipts_id_is_not_a_notification BEFORE INSERT ON receipts
          FOR EACH ROW EXECUTE FUNCTION iap_id_is_not_taken()
        """,
        """
        CREATE TRIGGER apple_notifications_id_is_not_a_receipt BEFORE INSERT ON apple_notifications
          FOR EACH ROW EXECUTE FUNCTION iap_id_is_not_taken()
        """,
        """
        CREATE TABLE app_account_tokens (
          token TEXT PRIMARY KEY CHECK (length(token) = 36 AND token = lower(token)),
          account_id TEXT NOT NULL REFERENCES accounts(id),
          created_at TIMESTAMPTZ NOT NULL)
        """,
        "CREATE INDEX app_account_tokens_on_account ON app_account_tokens (account_id, created_at)",
        """
        CREATE TABLE orders (
          id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
          account_id TEXT NOT NULL REFERENCES accounts(id),
          product_id TEXT NOT NULL CHECK (length(product_id) > 0),
          apple_product_id TEXT NOT NULL,
          app_account_token TEXT NOT NULL REFERENCES app_account_tokens(token),
          first_purchase BOOLEAN NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('open', 'fulfilled', 'mismatched', 'cancelled', 'expired')),
          created_at TIMESTAMPTZ NOT NULL,
          expires_at TIMESTAMPTZ NOT NULL,
          closed_at TIMESTAMPTZ,
          close_reason TEXT,
          receipt_id TEXT REFERENCES receipts(id),
          transaction_id TEXT,
          credited_product_id TEXT,
          CHECK ((status = 'open') = (closed_at IS NULL)),
          CHECK (status NOT IN ('fulfilled', 'mismatched') OR transaction_id IS NOT NULL))
        """,
        "CREATE UNIQUE INDEX orders_one_open_per_account_product ON orders (account_id, product_id) WHERE status = 'open'",
        "CREATE INDEX orders_on_account_product_created ON orders (account_id, product_id, created_at)",
        """
        CREATE TABLE apple_transactions (
          transaction_id TEXT PRIMARY KEY CHECK (length(transaction_id) > 0),
          original_transaction_id TEXT NOT NULL,
          product_id TEXT NOT NULL,
          quantity INTEGER NOT NULL CHECK (quantity >= 1),
          environment TEXT,
          receipt_id TEXT REFERENCES receipts(id),
          notification_id TEXT REFERENCES apple_notifications(id),
          account_id TEXT REFERENCES accounts(id),
          purchase_date TIMESTAMPTZ,
          expires_date TIMESTAMPTZ,
          cancellation_date TIMESTAMPTZ,
          state TEXT NOT NULL CHECK (state IN ('credited', 'refunded', 'revoked', 'unpaid')),
          entitlement TEXT CHECK (length(entitlement) > 0),
          created_at TIMESTAMPTZ NOT NULL,
          updated_at TIMESTAMPTZ NOT NULL,
          catalog_product_id TEXT,
          order_id TEXT REFERENCES orders(id),
          binding TEXT CHECK (binding IN ('order', 'app_account_token', 'original_transaction', 'submitter')),
          CHECK (state <> 'credited' OR account_id IS NOT NULL),
          CHECK (receipt_id IS NOT NULL OR notification_id IS NOT NULL))
        """,
        "CREATE INDEX apple_transactions_on_receipt ON apple_transactions (receipt_id)",
        "CREATE INDEX apple_transactions_on_original ON apple_transactions (original_transaction_id, created_at)",
        "CREATE INDEX apple_transactions_on_account_product ON apple_transactions (account_id, catalog_product_id)",
        """
        CREATE TABLE ledger_entries (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts(id),
          currency TEXT NOT NULL CHECK (length(currency) > 0),
          amount BIGINT NOT NULL CHECK (amount <> 0),
          kind TEXT NOT NULL CHECK (kind IN ('purchase', 'refund', 'revoke', 'refund_reversal', 'adjustment')),
          receipt_id TEXT REFERENCES receipts(id),
          notification_id TEXT REFERENCES apple_notifications(id),
          transaction_id TEXT,
          created_at TIMESTAMPTZ NOT NULL,
          UNIQUE (transaction_id, kind),
          CHECK (kind <> 'purchase' OR (amount > 0 AND transaction_id IS NOT NULL)),
          CHECK (kind NOT IN ('refund', 'revoke') OR (amount < 0 AND transaction_id IS NOT NULL)),
          CHECK (kind <> 'refund_reversal' OR (amount > 0 AND transaction_id IS NOT NULL)))
        """,
        "CREATE INDEX ledger_entries_on_account ON ledger_entries (account_id, id)",
        """
        CREATE UNIQUE INDEX ledger_entries_one_debit_per_transaction ON ledger_entries (transaction_id)
          WHERE kind IN ('refund', 'revoke')
        """,
        """
        CREATE TABLE receipt_transactions (
          seq BIGINT GENERATED ALWAYS AS IDENTITY,
          receipt_id TEXT NOT NULL REFERENCES receipts(id),
          transaction_id TEXT NOT NULL CHECK (length(transaction_id) > 0),
          product_id TEXT NOT NULL,
          outcome TEXT NOT NULL CHECK (outcome IN ('credited', 'already_credited', 'unknown_product', 'refunded', 'bound_to_another_account')),
          currency TEXT,
          amount BIGINT,
          entitlement TEXT,
          expires_at TIMESTAMPTZ,
          PRIMARY KEY (receipt_id, transaction_id),
          CHECK ((currency IS NULL) = (amount IS NULL)),
          CHECK (outcome <> 'credited' OR currency IS NOT NULL OR entitlement IS NOT NULL),
          CHECK (outcome = 'credited' OR (currency IS NULL AND entitlement IS NULL)))
        """,
        """
        CREATE TABLE notification_outbox (
          id TEXT PRIMARY KEY CHECK (length(id) > 0),
          type TEXT NOT NULL CHECK (type IN ('receipt.credited', 'receipt.rejected', 'receipt.dead', 'purchase.refunded', 'purchase.refund_reversed', 'subscription.renewed', 'subscription.expired')),
          receipt_id TEXT REFERENCES receipts(id),
          notification_id TEXT REFERENCES apple_notifications(id),
          account_id TEXT NOT NULL REFERENCES accounts(id),
          body TEXT NOT NULL CHECK ((body::jsonb) IS NOT NULL),
          status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
          attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
          next_attempt_at TIMESTAMPTZ,
          last_error TEXT,
          created_at TIMESTAMPTZ NOT NULL,
          delivered_at TIMESTAMPTZ,
          CHECK (status <> 'pending' OR next_attempt_at IS NOT NULL),
          CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)))
        """,
        "CREATE INDEX notification_outbox_due ON notification_outbox (status, next_attempt_at)",
        """
        CREATE UNIQUE INDEX notification_outbox_one_per_notification ON notification_outbox (notification_id, type)
          WHERE notification_id IS NOT NULL
        """,
        """
        CREATE UNIQUE INDEX notification_outbox_one_final_per_receipt ON notification_outbox (receipt_id)
          WHERE type IN ('receipt.credited', 'receipt.rejected')
        """,
        """
        CREATE TABLE binding_conflicts (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          transaction_id TEXT NOT NULL,
          original_transaction_id TEXT NOT NULL,
          receipt_id TEXT REFERENCES receipts(id),
          claimant_account_id TEXT NOT NULL,
          credited_account_id TEXT NOT NULL,
          binding TEXT NOT NULL,
          created_at TIMESTAMPTZ NOT NULL,
          UNIQUE (transaction_id, receipt_id))
        """,
        """
        CREATE TABLE subscription_checks (
          id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
          original_transaction_id TEXT NOT NULL,
          account_id TEXT NOT NULL REFERENCES accounts(id),
          entitlement TEXT NOT NULL,
          expires_at TIMESTAMPTZ NOT NULL,
          phase TEXT NOT NULL CHECK (phase IN ('before', 'after')),
          due_at TIMESTAMPTZ NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('scheduled', 'checking', 'done', 'failed')),
          outcome TEXT,
          reason TEXT,
          receipt_id TEXT REFERENCES receipts(id),
          created_at TIMESTAMPTZ NOT NULL,
          updated_at TIMESTAMPTZ NOT NULL,
          published_at TIMESTAMPTZ,
          UNIQUE (original_transaction_id, expires_at, phase))
        """,
        "CREATE INDEX subscription_checks_due ON subscription_checks (status, due_at)",
        """
        CREATE TABLE dead_letters (
          id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
          receipt_id TEXT CHECK (length(receipt_id) BETWEEN 1 AND 128),
          account_id TEXT,
          reason TEXT NOT NULL CHECK (length(reason) > 0),
          attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
          last_error TEXT,
          source_queue TEXT,
          body BYTEA NOT NULL,
          headers TEXT NOT NULL CHECK ((headers::jsonb) IS NOT NULL),
          dead_at TIMESTAMPTZ NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('waiting', 'replaying', 'replayed', 'discarded')),
          resolved_by TEXT,
          resolved_reason TEXT,
          resolved_at TIMESTAMPTZ,
          created_at TIMESTAMPTZ NOT NULL,
          CHECK (status <> 'discarded' OR (resolved_by IS NOT NULL AND length(resolved_reason) > 0)),
          CHECK (status <> 'replayed' OR resolved_at IS NOT NULL))
        """,
        "CREATE INDEX dead_letters_on_reason ON dead_letters (status, reason, dead_at)",
        "CREATE INDEX dead_letters_on_dead_at ON dead_letters (dead_at)",
        "CREATE INDEX dead_letters_on_account ON dead_letters (account_id, dead_at)",
        "CREATE INDEX dead_letters_on_receipt ON dead_letters (receipt_id)",
    ]

    private static let hex64 = "~ '^[0-9a-f]{64}$'"
}
