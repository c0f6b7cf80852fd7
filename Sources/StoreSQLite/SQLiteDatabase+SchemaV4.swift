import GRDB
import Store

extension SQLiteDatabase {
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
    static func createV4(_ db: Database) throws {
        try db.create(table: "dead_letters") { t in
            t.primaryKey("id", .text).check(sql: "length(id) BETWEEN 1 AND 128")
            t.column("receipt_id", .text).check(sql: "length(receipt_id) BETWEEN 1 AND 128")
            t.column("account_id", .text)
            t.column("reason", .text).notNull().check(sql: "length(reason) > 0")
            t.column("attempts", .integer).notNull().defaults(to: 0).check(sql: "attempts >= 0")
            t.column("last_error", .text)
            // The queue it died in: the routing key a replay publishes it with follows from it.
            t.column("source_queue", .text)
            t.column("body", .blob).notNull()
            t.column("headers", .text).notNull().check(sql: "json_valid(headers)")
            t.column("dead_at", .datetime).notNull()
            t.column("status", .text).notNull()
                .check(sql: "status IN ('waiting', 'replaying', 'replayed', 'discarded')")
            t.column("resolved_by", .text)
            t.column("resolved_reason", .text)
            t.column("resolved_at", .datetime)
            t.column("created_at", .datetime).notNull()
            t.check(sql: "status <> 'discarded' OR (resolved_by IS NOT NULL AND length(resolved_reason) > 0)")
            t.check(sql: "status <> 'replayed' OR resolved_at IS NOT NULL")
        }
        try db.create(index: "dead_letters_on_reason", on: "dead_letters", columns: ["status", "reason", "dead_at"])
        try db.create(index: "dead_letters_on_dead_at", on: "dead_letters", columns: ["dead_at"])
        try db.create(index: "dead_letters_on_account", on: "dead_letters", columns: ["account_id", "dead_at"])
        try db.create(index: "dead_letters_on_receipt", on: "dead_letters", columns: ["receipt_id"])

        try db.drop(index: "notification_outbox_one_final_per_receipt")
        try db.create(
            index: "notification_outbox_one_final_per_receipt", on: "notification_outbox",
            columns: ["receipt_id"], options: .unique,
            condition: ["receipt.credited", "receipt.rejected"].contains(Column("type")))
    }
}
