import Store

extension PostgresSchema {
    /// SQLite's v7: `manual_adjustments`.
    static let version4: [String] = [
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
    ]
}

extension PostgresSchema {
    /// SQLite's v8: Google Play receipts and their acknowledgements.
    static let version5: [String] = [
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
    ]
}

extension PostgresSchema {
    /// SQLite's v9: Google's notifications beside Apple's.
    static let version6: [String] = [
        """
        ALTER TABLE apple_notifications
          ADD COLUMN store TEXT NOT NULL DEFAULT 'apple' CHECK (store IN ('apple', 'google')),
          ADD COLUMN message_id TEXT UNIQUE CHECK (length(message_id) BETWEEN 1 AND 128)
        """
    ]
}
