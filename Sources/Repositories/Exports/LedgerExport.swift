import Database
import Foundation
import PipelineCore

/// The coin ledger (`ledger_entries`) as an export reads it: every credit and debit of a
/// currency the catalog grants, with what caused it. Entries are numbered as written, so a
/// span is a range of the key; an app's are its accounts' (`racer/…`, or the default app's
/// bare ids).
public struct LedgerExport: ExportedLedger {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    public static let name = "ledger"
    public static let header = [
        "id", "created_at", "app", "account_id", "kind", "currency", "amount", "transaction_id", "receipt_id",
        "notification_id", "step",
    ]
    public static let numbers: Set<String> = ["id", "amount", "step"]
    public static let booleans: Set<String> = []

    /// How much later than an entry written after it a ledger entry may be dated.
    static let slack: TimeInterval = 600

    public func ids(since: Date, until: Date) async throws -> ExportIDs {
        try await database.snapshot { db in
            let (low, high) = try await db.idRange(
                of: "ledger_entries", datedBy: "created_at", since: since, until: until, slack: Self.slack)
            return ExportIDs(low: low, high: high)
        }
    }

    public func lines(
        after cursor: Int64, within ids: ExportIDs, since: Date, until: Date, app: AppScope?, limit: Int,
        naming: ExportNaming
    ) async throws -> [ExportLine] {
        guard let first = ids.first(after: cursor) else { return [] }
        return try await database.snapshot { db in
            let owned = app?.sqlCondition(column: "account_id")
            let condition = owned.map { " AND " + $0.sql } ?? ""
            let arguments: SQLArguments =
                [first, ids.high, since, until] + (owned?.arguments ?? []) + [limit]
            return try await db.rows(
                """
                SELECT id, created_at, account_id, kind, currency, amount, transaction_id, receipt_id, notification_id,
                  step FROM ledger_entries
                WHERE id >= ? AND id < ? AND created_at >= ? AND created_at < ?\(condition)
                ORDER BY id LIMIT ?
                """, arguments
            ).map { row in
                let id: Int64 = try row.get("id")
                let account: String = try row.get("account_id")
                let amount: Int64 = try row.get("amount")
                let step: Int = try row.get("step")
                return ExportLine(
                    id: id,
                    values: [
                        String(id), Timestamp.format(try row.get("created_at")),
                        naming.app(AppScope.key(ofStored: account)), naming.account(account), try row.get("kind"),
                        try row.get("currency"), String(amount), try row.get("transaction_id", as: String?.self) ?? "",
                        try row.get("receipt_id", as: String?.self) ?? "",
                        try row.get("notification_id", as: String?.self) ?? "", String(step),
                    ])
            }
        }
    }
}
