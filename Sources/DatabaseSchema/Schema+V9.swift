extension Schema {
    /// v9: Google Play's real-time developer notifications beside Apple's, in the one table
    /// of store notifications (named for Apple, which came first, as `apple_transactions`
    /// keeps Play transactions): the ledger, dead letters and the console already follow a
    /// notification there. `store` says whose it is; `message_id` is the Pub/Sub message's
    /// id, unique, so a push delivered again is stored once.
    static let version9 = SchemaMigration(
        version: 9, summary: "Google's real-time developer notifications",
        sqlite: [
            """
            ALTER TABLE "apple_notifications" \
            ADD COLUMN "store" TEXT NOT NULL CHECK (store IN ('apple', 'google')) DEFAULT 'apple'
            """,
            """
            ALTER TABLE "apple_notifications" \
            ADD COLUMN "message_id" TEXT CHECK (length(message_id) BETWEEN 1 AND 128)
            """,
            #"CREATE UNIQUE INDEX "apple_notifications_message_id" ON "apple_notifications"("message_id")"#,
        ],
        postgres: [
            """
            ALTER TABLE apple_notifications
              ADD COLUMN store TEXT NOT NULL DEFAULT 'apple' CHECK (store IN ('apple', 'google')),
              ADD COLUMN message_id TEXT UNIQUE CHECK (length(message_id) BETWEEN 1 AND 128)
            """
        ])
}
