extension Schema {
    /// v16: indexes for the maintenance and the operators' pages that read the whole database.
    ///
    /// The pruner of rejected Apple notifications (`pruneRejected`) looked, for each rejected
    /// notification past its retention, for a transaction and a ledger entry naming it, and
    /// SQLite's foreign keys look for every row naming a notification it deletes: with no
    /// index on `notification_id`, SQLite read those tables whole per notification, inside the
    /// write transaction every receipt's commit waits for. These indexes are partial, so a
    /// receipt's own rows (no notification) never enter them:
    /// - `store_transactions_on_notification`, `ledger_entries_on_notification`,
    ///   `account_flags_on_notification`: the rows a store notification wrote;
    /// - `store_notifications_rejected`: the rejected ones by age, so that a pass reads only
    ///   those.
    ///
    /// And the webhook log (`iap webhooks list`, the console) read the whole outbox for a page,
    /// newest first, by time or by account (0.45 s over a million webhooks):
    /// - `notification_outbox_by_time`, `notification_outbox_on_account`: a page reads its
    ///   rows and no more. Each webhook's commit writes two more index entries, at the end of
    ///   each (side by side, the fulfiller spent 0.6-3 % more CPU; the stages, within the spread).
    static let version16 = SchemaMigration(
        version: 16, summary: "indexes for pruning rejected notifications and for the webhook log",
        sqlite: [
            """
            CREATE INDEX "store_transactions_on_notification" ON "store_transactions"("notification_id") \
            WHERE "notification_id" IS NOT NULL
            """,
            """
            CREATE INDEX "ledger_entries_on_notification" ON "ledger_entries"("notification_id") \
            WHERE "notification_id" IS NOT NULL
            """,
            """
            CREATE INDEX "account_flags_on_notification" ON "account_flags"("notification_id") \
            WHERE "notification_id" IS NOT NULL
            """,
            """
            CREATE INDEX "store_notifications_rejected" ON "store_notifications"("updated_at") \
            WHERE "status" = 'rejected'
            """,
            #"CREATE INDEX "notification_outbox_by_time" ON "notification_outbox"("created_at")"#,
            #"CREATE INDEX "notification_outbox_on_account" ON "notification_outbox"("account_id", "created_at")"#,
        ],
        postgres: [
            """
            CREATE INDEX store_transactions_on_notification ON store_transactions (notification_id) \
            WHERE notification_id IS NOT NULL
            """,
            """
            CREATE INDEX ledger_entries_on_notification ON ledger_entries (notification_id) \
            WHERE notification_id IS NOT NULL
            """,
            """
            CREATE INDEX account_flags_on_notification ON account_flags (notification_id) \
            WHERE notification_id IS NOT NULL
            """,
            "CREATE INDEX store_notifications_rejected ON store_notifications (updated_at) WHERE status = 'rejected'",
            "CREATE INDEX notification_outbox_by_time ON notification_outbox (created_at)",
            "CREATE INDEX notification_outbox_on_account ON notification_outbox (account_id, created_at)",
        ])
}
