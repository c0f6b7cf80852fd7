import PipelineCore

extension VerifyReceiptResponse {
    /// The transactions this answer vouches for, once each.
    ///
    /// `receipt.in_app` and `latest_receipt_info` overlap; an entry in both is taken from
    /// `latest_receipt_info`, which Apple keeps current for subscriptions (renewals, refunds).
    /// The order is `in_app`'s, then entries only `latest_receipt_info` has, in its order.
    /// Entries without a `transaction_id` or `product_id` cannot be credited and are left out;
    /// a missing `original_transaction_id` is the transaction id, a missing `quantity` is 1.
    public var verifiedTransactions: [VerifiedTransaction] {
        var order: [String] = []
        var byID: [String: VerifiedTransaction] = [:]
        for entry in (receipt?.inApp ?? []) + (latestReceiptInfo ?? []) {
            guard let transaction = entry.verified else { continue }
            if byID.updateValue(transaction, forKey: transaction.transactionID) == nil {
                order.append(transaction.transactionID)
            }
        }
        return order.compactMap { byID[$0] }
    }
}

extension VerifyReceiptResponse.Transaction {
    /// This entry as the pipeline's transaction, or `nil` if it names no transaction or product.
    public var verified: VerifiedTransaction? {
        guard let transactionID, !transactionID.isEmpty, let productID, !productID.isEmpty else { return nil }
        return VerifiedTransaction(
            transactionID: transactionID,
            originalTransactionID: originalTransactionID.flatMap { $0.isEmpty ? nil : $0 } ?? transactionID,
            productID: productID,
            quantity: quantity ?? 1,
            purchaseDate: purchaseDate,
            expiresDate: expiresDate,
            cancellationDate: cancellationDate,
            appAccountToken: appAccountToken,
            isUpgraded: isUpgraded == "true" ? true : nil
        )
    }
}
