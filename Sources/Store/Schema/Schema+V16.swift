extension Schema {
    /// v16: indexes for the maintenance that reads the whole database.
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
    static let version16 = SchemaMigration(
        version: 16, summary: "indexes for pruning rejected notifications",
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
        ])
}
