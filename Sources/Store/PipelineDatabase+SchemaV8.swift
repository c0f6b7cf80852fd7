import GRDB

extension PipelineDatabase {
    /// v8: receipts of a third kind, `google_play` (a Play purchase token, stored as its
    /// canonical JSON): the `kind` check is widened (the table is rebuilt).
    static func createV8(_ db: Database) throws {
        try rebuild(table: "receipts", in: db) {
            $0.replacingOccurrences(
                of: "kind IN ('legacy', 'storekit2')", with: "kind IN ('legacy', 'storekit2', 'google_play')")
        }
    }
}

extension PostgresSchema {
    /// SQLite's v8: Google Play receipts.
    static let version5: [String] = [
        "ALTER TABLE receipts DROP CONSTRAINT receipts_kind_check",
        "ALTER TABLE receipts ADD CONSTRAINT receipts_kind_check CHECK (kind IN ('legacy', 'storekit2', 'google_play'))",
    ]
}
