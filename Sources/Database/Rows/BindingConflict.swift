import Foundation
import PipelineCore
import Settlement

/// A row of `binding_conflicts`: an account claimed a purchase (it sent the receipt) and
/// the binding rules credited another. Kept for support and fraud review.
package struct BindingConflict: Codable, Hashable, Sendable {
    package var id: Int64?
    package var transactionID: String
    package var originalTransactionID: String
    package var receiptID: String?
    package var claimantAccountID: String
    package var creditedAccountID: String
    package var binding: BindingPath
    package var createdAt: Date

    package init(
        id: Int64? = nil, transactionID: String, originalTransactionID: String, receiptID: String? = nil,
        claimantAccountID: String, creditedAccountID: String, binding: BindingPath, createdAt: Date
    ) {
        self.id = id
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.receiptID = receiptID
        self.claimantAccountID = claimantAccountID
        self.creditedAccountID = creditedAccountID
        self.binding = binding
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case receiptID = "receipt_id"
        case claimantAccountID = "claimant_account_id"
        case creditedAccountID = "credited_account_id"
        case binding
        case createdAt = "created_at"
    }
}

/// A purchase credited to another account than the one that sent it.
public struct BindingConflictDetails: Codable, Hashable, Sendable {
    public var transactionID: String
    public var originalTransactionID: String
    public var receiptID: String?
    public var claimantAccountID: String
    public var creditedAccountID: String
    /// `order`, `app_account_token` or `original_transaction`.
    public var binding: String
    public var createdAt: Date

    package init(_ row: BindingConflict) {
        transactionID = row.transactionID
        originalTransactionID = row.originalTransactionID
        receiptID = row.receiptID
        claimantAccountID = row.claimantAccountID
        creditedAccountID = row.creditedAccountID
        binding = row.binding.rawValue
        createdAt = row.createdAt
    }
}
