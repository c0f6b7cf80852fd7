import GRDB
import Store

extension SQLiteDatabase {
    /// v9: Google Play's real-time developer notifications beside Apple's, in the one table
    /// of store notifications (named for Apple, which came first, as `apple_transactions`
    /// keeps Play transactions): the ledger, dead letters and the console already follow a
    /// notification there. `store` says whose it is; `message_id` is the Pub/Sub message's
    /// id, unique, so a push delivered again is stored once.
    static func createV9(_ db: Database) throws {
        try db.alter(table: "apple_notifications") { t in
            t.add(column: "store", .text).notNull().defaults(to: "apple").check(sql: "store IN ('apple', 'google')")
            t.add(column: "message_id", .text).check(sql: "length(message_id) BETWEEN 1 AND 128")
        }
        try db.create(
            index: "apple_notifications_message_id", on: "apple_notifications", columns: ["message_id"], unique: true)
    }
}
