import GRDB
import Store

extension SQLiteDatabase {
    /// v8: receipts of a third kind, `google_play` (a Play purchase token, stored as its
    /// canonical JSON): the `kind` check is widened (the table is rebuilt).
    ///
    /// `google_acknowledgements`: what Google must be told after a Play purchase is credited
    /// (consumed, or acknowledged), one row per purchase token, written in the credit's
    /// transaction and worked off until Google says it is done (``GoogleAcknowledgementStore``).
    static func createV8(_ db: Database) throws {
        try rebuild(table: "receipts", in: db) {
            $0.replacingOccurrences(
                of: "kind IN ('legacy', 'storekit2')", with: "kind IN ('legacy', 'storekit2', 'google_play')")
        }
        try db.create(table: "google_acknowledgements") { t in
            t.primaryKey("purchase_token", .text).check(sql: "length(purchase_token) > 0")
            t.column("package_name", .text).notNull()
            t.column("product_id", .text).notNull()
            t.column("action", .text).notNull()
                .check(sql: "action IN ('consume', 'acknowledge', 'acknowledge_subscription')")
            t.column("receipt_id", .text).references("receipts")
            t.column("status", .text).notNull().check(sql: "status IN ('pending', 'done', 'failed')")
            t.column("attempts", .integer).notNull().defaults(to: 0)
            t.column("next_attempt_at", .datetime)
            t.column("last_error", .text)
            t.column("created_at", .datetime).notNull()
            t.column("done_at", .datetime)
        }
        try db.create(
            index: "google_acknowledgements_due", on: "google_acknowledgements", columns: ["status", "next_attempt_at"])
        // How far each app's voided purchases have been read (``GoogleVoidedStore``).
        try db.create(table: "google_voided_polls") { t in
            t.primaryKey("package_name", .text)
            t.column("polled_until", .datetime).notNull()
        }
    }
}
