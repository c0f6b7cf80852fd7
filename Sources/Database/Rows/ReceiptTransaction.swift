import Foundation
import Settlement

/// A row of `receipt_transactions`: one Apple transaction a receipt carried, and what
/// became of it in that receipt.
package struct ReceiptTransaction: Codable, Hashable, Sendable {
    package var receiptID: String
    package var transactionID: String
    package var productID: String
    package var outcome: TransactionOutcome
    package var currency: String?
    package var amount: Int?
    package var entitlement: String?
    package var expiresAt: Date?

    package init(
        receiptID: String, transactionID: String, productID: String, outcome: TransactionOutcome,
        currency: String? = nil, amount: Int? = nil, entitlement: String? = nil, expiresAt: Date? = nil
    ) {
        self.receiptID = receiptID
        self.transactionID = transactionID
        self.productID = productID
        self.outcome = outcome
        self.currency = currency
        self.amount = amount
        self.entitlement = entitlement
        self.expiresAt = expiresAt
    }

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
    package var carried: ReceiptDetails.CarriedTransaction {
        ReceiptDetails.CarriedTransaction(
            transactionID: transactionID, productID: productID, outcome: outcome, currency: currency,
            amount: amount, entitlement: entitlement, expiresAt: expiresAt)
    }
}
