import Foundation

extension AppReceipt {
    /// One in-app purchase: an entry of field 17, itself a SET of attributes.
    public struct InAppPurchase: Hashable, Sendable, Codable {
        /// Field 1702.
        public var productID: String?
        /// Field 1701.
        public var quantity: Int?
        /// Field 1703.
        public var transactionID: String?
        /// Field 1705; Xcode leaves it out.
        public var originalTransactionID: String?
        /// Field 1704.
        public var purchaseDate: Date?
        /// Field 1706; Xcode leaves it out.
        public var originalPurchaseDate: Date?
        /// Field 1708: the end of the period a subscription paid for; empty (nil) for other products.
        public var expiresDate: Date?
        /// Field 1712: when Apple refunded it; empty (nil) when it was not.
        public var cancellationDate: Date?
        /// Field 1711: the subscription purchase event across devices; 0 for other products.
        public var webOrderLineItemID: Int64?

        /// Creates an entry.
        public init(
            productID: String?, quantity: Int? = 1, transactionID: String?, originalTransactionID: String? = nil,
            purchaseDate: Date? = nil, originalPurchaseDate: Date? = nil, expiresDate: Date? = nil,
            cancellationDate: Date? = nil, webOrderLineItemID: Int64? = nil
        ) {
            self.productID = productID
            self.quantity = quantity
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID
            self.purchaseDate = purchaseDate
            self.originalPurchaseDate = originalPurchaseDate
            self.expiresDate = expiresDate
            self.cancellationDate = cancellationDate
            self.webOrderLineItemID = webOrderLineItemID
        }

        enum CodingKeys: String, CodingKey {
            case productID = "product_id"
            case quantity
            case transactionID = "transaction_id"
            case originalTransactionID = "original_transaction_id"
            case purchaseDate = "purchase_date"
            case originalPurchaseDate = "original_purchase_date"
            case expiresDate = "expires_date"
            case cancellationDate = "cancellation_date"
            case webOrderLineItemID = "web_order_line_item_id"
        }

        /// This entry as `verifyReceipt` would list it in `in_app`, so both paths credit alike.
        public var verifyReceiptTransaction: VerifyReceiptResponse.Transaction {
            VerifyReceiptResponse.Transaction(
                transactionID: transactionID, originalTransactionID: originalTransactionID, productID: productID,
                quantity: quantity, purchaseDate: purchaseDate, originalPurchaseDate: originalPurchaseDate,
                expiresDate: expiresDate, cancellationDate: cancellationDate,
                webOrderLineItemID: webOrderLineItemID.map(String.init))
        }
    }
}
