import Database
import Foundation
import Settlement

/// A row of `ledger_entries`: one signed movement of a balance. Written only together
/// with the matching change to `balances`, so the sum of an account's entries in a
/// currency is its balance (``SQLiteDatabase/audit()`` checks).
struct LedgerEntry: Codable, Hashable, Sendable {
    var id: Int64?
    var accountID: String
    var currency: String
    var amount: Int
    var kind: LedgerKind
    /// The receipt whose application posted it, if one did.
    var receiptID: String?
    /// The Apple notification whose application posted it, if one did.
    var notificationID: String?
    var transactionID: String?
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id
        case accountID = "account_id"
        case currency, amount, kind
        case receiptID = "receipt_id"
        case notificationID = "notification_id"
        case transactionID = "transaction_id"
        case createdAt = "created_at"
    }
}

extension LedgerEntry {
    var line: AccountDetails.LedgerLine {
        AccountDetails.LedgerLine(
            id: id ?? 0, currency: currency, amount: amount, kind: kind, receiptID: receiptID,
            notificationID: notificationID, transactionID: transactionID, createdAt: createdAt)
    }
}
