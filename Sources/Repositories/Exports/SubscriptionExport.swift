import Database
import Foundation
import PipelineCore
import Settlement

/// Subscriptions' periods as an export reads them: each period of an auto-renewable product
/// on the revenue ledger (a first period, paid or a free trial, or a renewal), with when it
/// runs and what it brings a month, so that a warehouse can draw subscribers, monthly
/// recurring revenue and cohorts over any time it likes.
public struct SubscriptionExport: ExportedLedger {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    public static let name = "subscriptions"
    public static let header = [
        "id", "created_at", "app", "store", "account_id", "original_transaction_id", "transaction_id", "product_id",
        "period", "trial", "period_start", "period_end", "currency", "minor_unit_digits", "gross", "proceeds",
        "monthly_recurring", "offer_type", "offer_id",
    ]
    public static let numbers: Set<String> = ["id", "minor_unit_digits", "gross", "proceeds", "monthly_recurring"]
    public static let booleans: Set<String> = ["trial"]

    public func ids(since: Date, until: Date) async throws -> ExportIDs {
        try await RevenueRepository(database).ids(since: since, until: until)
    }

    public func lines(
        after cursor: Int64, within ids: ExportIDs, since: Date, until: Date, app: AppScope?, limit: Int,
        naming: ExportNaming
    ) async throws -> [ExportLine] {
        guard let first = ids.first(after: cursor) else { return [] }
        return try await database.snapshot { db in
            let arguments: SQLArguments =
                [first, ids.high, since, until] + (app.map { [$0.key] } ?? []) + [limit]
            return try await db.rows(
                """
                SELECT r.id, r.created_at, r.app, r.store, r.account_id, r.original_transaction_id, r.transaction_id,
                  r.product_id, r.kind, r.currency, r.gross, r.proceeds, t.purchase_date, t.expires_date,
                  t.offer_type, t.offer_id
                FROM revenue_entries r LEFT JOIN store_transactions t ON t.transaction_id = r.transaction_id
                WHERE r.id >= ? AND r.id < ? AND r.created_at >= ? AND r.created_at < ?
                  AND r.subscription AND r.kind IN ('purchase', 'renewal')\(app == nil ? "" : " AND r.app = ?")
                ORDER BY r.id LIMIT ?
                """, arguments
            ).map { row in
                let id: Int64 = try row.get("id")
                let currency: String = try row.get("currency")
                let gross: Int64 = try row.get("gross")
                let proceeds: Int64 = try row.get("proceeds")
                let start: Date? = try row.get("purchase_date")
                let end: Date? = try row.get("expires_date")
                let kind: String = try row.get("kind")
                return ExportLine(
                    id: id,
                    values: [
                        String(id), Timestamp.format(try row.get("created_at")), naming.app(try row.get("app")),
                        try row.get("store"), naming.account(try row.get("account_id")),
                        try row.get("original_transaction_id"), try row.get("transaction_id"),
                        try row.get("product_id"), kind, String(kind == "purchase" && gross == 0),
                        start.map(Timestamp.format) ?? "", end.map(Timestamp.format) ?? "", currency,
                        String(CurrencyUnits.exponent(of: currency)), String(gross), String(proceeds),
                        RevenueEntry.monthly(gross, from: start, to: end).map(String.init) ?? "",
                        try row.get("offer_type", as: String?.self) ?? "",
                        try row.get("offer_id", as: String?.self) ?? "",
                    ])
            }
        }
    }
}
