extension Schema {
    /// v4: the dead-letter archive that operators review (`iap dlq`, the console).
    ///
    /// - `dead_letters`: every message the pipeline dead-lettered, whole (body and headers),
    ///   stored by the fulfiller in the transaction that marks its receipt dead, so that
    ///   listing, grouping and filtering are queries. A receipt may die, be replayed and die
    ///   again, so a letter has its own id; `receipt_id` names the receipt or Apple
    ///   notification it carried (NULL when the message named none).
    /// - `notification_outbox_one_final_per_receipt` no longer counts `receipt.dead`: a
    ///   replayed receipt ends again (credited, rejected or dead once more) after its first
    ///   `receipt.dead` event. Credited and rejected stay once per receipt.
    ///
    /// PostgreSQL's schema begins here, with every table of v1-v4 in its v4 shape
    /// (``postgresV4``).
    static let version4 = SchemaMigration(
        version: 4, summary: "the dead-letter archive",
        sqlite: [
            // `source_queue`: the queue it died in; the routing key a replay publishes it with follows from it.
            """
            CREATE TABLE "dead_letters" (\
            "id" TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128), \
            "receipt_id" TEXT CHECK (length(receipt_id) BETWEEN 1 AND 128), \
            "account_id" TEXT, \
            "reason" TEXT NOT NULL CHECK (length(reason) > 0), \
            "attempts" INTEGER NOT NULL CHECK (attempts >= 0) DEFAULT 0, \
            "last_error" TEXT, \
            "source_queue" TEXT, \
            "body" BLOB NOT NULL, \
            "headers" TEXT NOT NULL CHECK (json_valid(headers)), \
            "dead_at" DATETIME NOT NULL, \
            "status" TEXT NOT NULL CHECK (status IN ('waiting', 'replaying', 'replayed', 'discarded')), \
            "resolved_by" TEXT, \
            "resolved_reason" TEXT, \
            "resolved_at" DATETIME, \
            "created_at" DATETIME NOT NULL, \
            CHECK (status <> 'discarded' OR (resolved_by IS NOT NULL AND length(resolved_reason) > 0)), \
            CHECK (status <> 'replayed' OR resolved_at IS NOT NULL))
            """,
            #"CREATE INDEX "dead_letters_on_reason" ON "dead_letters"("status", "reason", "dead_at")"#,
            #"CREATE INDEX "dead_letters_on_dead_at" ON "dead_letters"("dead_at")"#,
            #"CREATE INDEX "dead_letters_on_account" ON "dead_letters"("account_id", "dead_at")"#,
            #"CREATE INDEX "dead_letters_on_receipt" ON "dead_letters"("receipt_id")"#,
            #"DROP INDEX "notification_outbox_one_final_per_receipt""#,
            """
            CREATE UNIQUE INDEX "notification_outbox_one_final_per_receipt" ON "notification_outbox"("receipt_id") \
            WHERE "type" IN ('receipt.credited', 'receipt.rejected')
            """,
        ],
        postgres: postgresV4)
}
