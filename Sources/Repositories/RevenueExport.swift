import Foundation
import PipelineCore
import Settlement

/// The revenue ledger as files a warehouse takes, the same from `iap export revenue` and
/// from `GET /v1/exports/revenue`: CSV (RFC 4180, a header line first) or NDJSON (one JSON
/// object per line), a line per entry in ledger order, amounts in minor units with the
/// currency's exponent beside them. The `id` column is the cursor a run resumes after.
public enum RevenueExport {
    public enum Format: String, Sendable, CaseIterable {
        case csv, ndjson

        /// The media type of a file of this format.
        public var mediaType: String { self == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson" }
    }

    public static let header = [
        "id", "created_at", "app", "store", "account_id", "transaction_id", "original_transaction_id", "product_id",
        "kind", "currency", "minor_unit_digits", "gross", "proceeds", "commission_bp", "country", "estimated",
        "receipt_id", "notification_id", "step",
    ]

    /// The CSV header line, with its line break.
    public static var headerLine: String { header.joined(separator: ",") + "\n" }

    /// A day (UTC midnight: `2026-11-01`) or an ISO 8601 moment (`2026-11-01T08:00:00Z`, an
    /// offset `+01:00`); nil for anything else, as the API's contract says (docs/openapi.yaml).
    public static func moment(_ text: String) -> Date? {
        guard text.utf8.count <= 64,
            (try? /[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9:.]+(Z|[+-][0-9]{2}:[0-9]{2}))?/.wholeMatch(in: text)) != nil
        else { return nil }
        if let day = try? Date(text, strategy: .iso8601.year().month().day()) { return day }
        return try? Date(text, strategy: .iso8601)
    }

    /// One entry as a line, with its line break. `accountID` names the account as the reader
    /// knows it (an app's backend: its own ids; an operator: the stored ones).
    public static func line(_ row: RevenueRepository.Row, _ format: Format, app: String, accountID: String) -> String {
        let values = values(row, app: app, accountID: accountID)
        switch format {
        case .csv:
            return values.map(CSVField.quoted).joined(separator: ",") + "\n"
        case .ndjson:
            var object: [String: Any] = [:]
            let numeric: Set<String> = ["id", "minor_unit_digits", "gross", "proceeds", "commission_bp", "step"]
            for (name, value) in zip(header, values) where !value.isEmpty {
                object[name] = numeric.contains(name) ? Int64(value) as Any : value as Any
            }
            object["estimated"] = row.entry.estimated
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self) + "\n"
        }
    }

    static func values(_ row: RevenueRepository.Row, app: String, accountID: String) -> [String] {
        let entry = row.entry
        return [
            String(row.id), Timestamp.format(row.createdAt), app, entry.store, accountID, entry.transactionID,
            entry.originalTransactionID, entry.productID, entry.kind.rawValue, entry.currency,
            String(CurrencyUnits.exponent(of: entry.currency)), String(entry.gross), String(entry.proceeds),
            String(entry.commissionBasisPoints), entry.country ?? "", entry.estimated ? "true" : "false",
            entry.receiptID ?? "", entry.notificationID ?? "", String(entry.step),
        ]
    }
}
