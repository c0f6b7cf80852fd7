import Foundation
import PipelineCore

// MARK: - Revenue for what was credited before the revenue ledger began

extension SettlementEngine {
    /// The revenue entries of a transaction credited before the revenue ledger began (schema
    /// v21), as the ledger would have written them: its payment, priced as a live one is (the
    /// store's price where `transaction` carries one, else the catalog's, marked estimated),
    /// and, for one refunded or revoked since, a take-back of all of it. Nothing for a
    /// product the catalog no longer sells, or with no price anywhere.
    /// - Parameters:
    ///   - catalogProductID: the catalog product it credited.
    ///   - subscriptionSince: the subscription's first purchase, for the commission's second year.
    public func backfilledRevenue(
        _ transaction: VerifiedTransaction, catalogProductID: String, state: TransactionState, accountID: String,
        cause: Cause, subscriptionSince: Date?
    ) -> [RevenueEntry] {
        guard state != .unpaid, let product = catalog.product(catalogProductID) else { return [] }
        let renewal =
            product.kind == .autoRenewable && transaction.transactionID != transaction.originalTransactionID
        guard
            let paid = revenue(
                of: transaction, product: product, accountID: accountID, cause: cause, renewal: renewal,
                subscriptionSince: subscriptionSince)
        else { return [] }
        guard state == .refunded || state == .revoked else { return [paid] }
        var takenBack = paid
        takenBack.kind = state == .refunded ? .refund : .revocation
        takenBack.gross = -paid.gross
        takenBack.proceeds = -paid.proceeds
        takenBack.tax = paid.tax.map { -$0 }
        takenBack.step = 1
        // A payment of nothing (a free trial) has nothing to give back.
        return paid.gross > 0 ? [paid, takenBack] : [paid]
    }
}
