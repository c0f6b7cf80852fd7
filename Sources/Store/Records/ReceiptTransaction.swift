import Database
import Foundation
import Settlement

/// A row of `receipt_transactions`: one Apple transaction a receipt carried, and what
/// became of it in that receipt.
struct ReceiptTransaction: Codable, Hashable, Sendable {
    var receiptID: String
    var transactionID: String
    var productID: String
    var outcome: TransactionOutcome
    var currency: String?
    var amount: Int?
    var entitlement: String?
    var expiresAt: Date?

    enum CodingKeys: String, CodingKey {
        case receiptID = "receipt_id"
        case transactionID = "transaction_id"
        case productID = "product_id"
        case outcome, currency, amount, entitlement
        case expiresAt = "expires_at"
    }
}

extension ReceiptTransaction {
    /// As `GET /v1/receipts/{id}` and the webhooks show it.
    var carried: ReceiptDetails.CarriedTransaction {
        ReceiptDetails.CarriedTransaction(
            transactionID: transactionID, productID: productID, outcome: outcome, currency: currency,
            amount: amount, entitlement: entitlement, expiresAt: expiresAt)
    }
}
