import Foundation
import Settlement

/// A row of `ledger_entries`: one signed movement of a balance. Written only together
/// with the matching change to `balances`, so the sum of an account's entries in a
/// currency is its balance (``SQLiteDatabase/audit()`` checks).
package struct LedgerEntry: Codable, Hashable, Sendable {
    package var id: Int64?
    package var accountID: String
    package var currency: String
    package var amount: Int
    package var kind: LedgerKind
    /// The receipt whose application posted it, if one did.
    package var receiptID: String?
    /// The Apple notification whose application posted it, if one did.
    package var notificationID: String?
    package var transactionID: String?
    package var createdAt: Date

    package init(
        id: Int64? = nil, accountID: String, currency: String, amount: Int, kind: LedgerKind, receiptID: String? = nil,
        notificationID: String? = nil, transactionID: String? = nil, createdAt: Date
    ) {
        self.id = id
        self.accountID = accountID
        self.currency = currency
        self.amount = amount
        self.kind = kind
        self.receiptID = receiptID
        self.notificationID = notificationID
        self.transactionID = transactionID
        self.createdAt = createdAt
    }

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
    package var line: AccountDetails.LedgerLine {
        AccountDetails.LedgerLine(
            id: id ?? 0, currency: currency, amount: amount, kind: kind, receiptID: receiptID,
            notificationID: notificationID, transactionID: transactionID, createdAt: createdAt)
    }
}
