import Database
import Foundation
import PipelineCore
import Settlement

extension RevenueBackfill {
    /// What the back-fill prices a transaction by: the transaction as recorded, its app, store
    /// and account, and the evidence that first carried it.
    struct Fact {
        var transaction: VerifiedTransaction
        var catalogProductID: String
        var state: TransactionState
        var app: String
        var accountID: String
        var cause: Cause
        var evidence: StoredEvidence
        var subscriptionSince: Date?
    }

    /// The facts of `ids`, by transaction id.
    static func facts(_ ids: Set<String>, _ db: any SQLSession) async throws -> [String: Fact] {
        let rows = try await db.rows(
            """
            SELECT t.transaction_id, t.original_transaction_id, t.product_id, t.quantity, t.purchase_date,
              t.expires_date, t.state, t.catalog_product_id, t.app, t.account_id, t.receipt_id, t.notification_id,
              r.kind AS receipt_kind, r.payload AS receipt_payload, n.store AS notification_store,
              n.payload AS notification_payload,
              (SELECT MIN(f.purchase_date) FROM store_transactions f
                WHERE f.original_transaction_id = t.original_transaction_id) AS first_purchase
            FROM store_transactions t
            LEFT JOIN receipts r ON r.id = t.receipt_id
            LEFT JOIN store_notifications n ON n.id = t.notification_id
            WHERE t.transaction_id IN (?)
            """, in: ids.sorted())
        var facts: [String: Fact] = [:]
        for row in rows {
            guard let state = TransactionState(rawValue: try row.get("state")),
                let catalogProductID = try row.get("catalog_product_id", as: String?.self),
                let accountID = try row.get("account_id", as: String?.self)
            else { continue }
            let id: String = try row.get("transaction_id")
            let receiptKind = try row.get("receipt_kind", as: String?.self)
            let notificationStore = try row.get("notification_store", as: String?.self)
            // The store as the live ledger names it (the fulfiller's cause).
            let store =
                receiptKind.map { StoreEvidence.store(ofReceiptKind: $0) ?? StoreEvidence.appleStore }
                ?? notificationStore ?? StoreEvidence.appleStore
            let app: String = try row.get("app")
            facts[id] = Fact(
                transaction: VerifiedTransaction(
                    transactionID: id, originalTransactionID: try row.get("original_transaction_id"),
                    productID: try row.get("product_id"), quantity: try row.get("quantity"),
                    purchaseDate: try row.get("purchase_date"), expiresDate: try row.get("expires_date")),
                catalogProductID: catalogProductID, state: state, app: app, accountID: accountID,
                cause: Cause(
                    app: app, receiptID: try row.get("receipt_id"), notificationID: try row.get("notification_id"),
                    store: store),
                evidence: StoredEvidence(
                    transactionID: id, receiptKind: receiptKind, receiptPayload: try row.get("receipt_payload"),
                    notificationStore: notificationStore, notificationPayload: try row.get("notification_payload")),
                subscriptionSince: try row.get("first_purchase"))
        }
        return facts
    }
}
