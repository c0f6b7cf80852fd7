import Foundation
import PipelineCore
import Settlement

/// The revenue ledger as an export reads it (docs/revenue.md): amounts in minor units with
/// the currency's exponent beside them.
public struct RevenueExport: ExportedLedger {
    let repository: RevenueRepository

    public init(_ repository: RevenueRepository) {
        self.repository = repository
    }

    public static let name = "revenue"
    public static let header = [
        "id", "created_at", "app", "store", "account_id", "transaction_id", "original_transaction_id", "product_id",
        "kind", "currency", "minor_unit_digits", "gross", "proceeds", "commission_bp", "country", "estimated",
        "subscription", "receipt_id", "notification_id", "step",
    ]
    public static let numbers: Set<String> = ["id", "minor_unit_digits", "gross", "proceeds", "commission_bp", "step"]
    public static let booleans: Set<String> = ["estimated", "subscription"]

    public func ids(since: Date, until: Date) async throws -> ExportIDs {
        try await repository.ids(since: since, until: until)
    }

    public func lines(
        after cursor: Int64, within ids: ExportIDs, since: Date, until: Date, app: AppScope?, limit: Int,
        naming: ExportNaming
    ) async throws -> [ExportLine] {
        try await repository.page(after: cursor, within: ids, since: since, until: until, app: app?.key, limit: limit)
            .map { row in
                let entry = row.entry
                return ExportLine(
                    id: row.id,
                    values: [
                        String(row.id), Timestamp.format(row.createdAt), naming.app(entry.app), entry.store,
                        naming.account(entry.accountID), entry.transactionID, entry.originalTransactionID,
                        entry.productID,
                        entry.kind.rawValue, entry.currency, String(CurrencyUnits.exponent(of: entry.currency)),
                        String(entry.gross), String(entry.proceeds), String(entry.commissionBasisPoints),
                        entry.country ?? "", String(entry.estimated), String(entry.subscription), entry.receiptID ?? "",
                        entry.notificationID ?? "", String(entry.step),
                    ])
            }
    }
}
