extension Schema {
    /// v19: which intake's relay publishes each committed receipt and notification (issue 55).
    ///
    /// Several intakes on one database each publish what they committed on their fast path,
    /// and each sweeps what the broker has not confirmed. The sweep read every unconfirmed
    /// row, so a slow mark of one intake's fast path was published again by another's sweep
    /// (one more verification asked of the store). Now each row names its relay:
    /// - `receipts.relay`, `store_notifications.relay`: the relay of the intake that committed
    ///   it; NULL for rows written before, or by a job outside an intake (reconciliation): any
    ///   relay's, claimed by one before it publishes them.
    /// - `relays`: each running relay and when it last said it was alive; a relay that has
    ///   not said so for its lease (or left at shutdown) leaves its rows to be adopted.
    static let version19 = SchemaMigration(
        version: 19, summary: "each committed receipt's and notification's relay, and the relays alive",
        sqlite: [
            #"ALTER TABLE "receipts" ADD COLUMN "relay" TEXT"#,
            #"ALTER TABLE "store_notifications" ADD COLUMN "relay" TEXT"#,
            """
            CREATE TABLE "relays" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            "seen_at" DATETIME NOT NULL)
            """,
        ],
        postgres: [
            "ALTER TABLE receipts ADD COLUMN relay TEXT",
            "ALTER TABLE store_notifications ADD COLUMN relay TEXT",
            """
            CREATE TABLE relays (\
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            seen_at TIMESTAMPTZ NOT NULL)
            """,
        ])
}
