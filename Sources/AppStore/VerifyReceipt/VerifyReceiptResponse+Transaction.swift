import Foundation

extension VerifyReceiptResponse {
    /// One entry of `receipt.in_app` or `latest_receipt_info`: the two share a shape
    /// ([In_app](https://developer.apple.com/documentation/appstorereceipts/responsebody/receipt/in_app),
    /// [Latest_receipt_info](https://developer.apple.com/documentation/appstorereceipts/responsebody/latest_receipt_info)).
    ///
    /// Timestamps are read from the `_ms` fields (milliseconds since 1970, strings on the wire);
    /// `quantity` is a string on the wire.
    public struct Transaction: Codable, Hashable, Sendable {
        /// `transaction_id`: unique per purchase, restore and renewal.
        public var transactionID: String?
        /// `original_transaction_id`: the first purchase of a subscription, or of a restored item.
        public var originalTransactionID: String?
        /// `product_id`.
        public var productID: String?
        /// `quantity`.
        public var quantity: Int?
        /// `purchase_date_ms`.
        public var purchaseDate: Date?
        /// `original_purchase_date_ms`.
        public var originalPurchaseDate: Date?
        /// `expires_date_ms`: the end of the period a subscription transaction paid for.
        public var expiresDate: Date?
        /// `cancellation_date_ms`: when Apple refunded or revoked the transaction.
        public var cancellationDate: Date?
        /// `cancellation_reason`: `"1"` an issue in the app, `"0"` another reason.
        public var cancellationReason: String?
        /// `web_order_line_item_id`: the subscription purchase event across devices.
        public var webOrderLineItemID: String?
        /// `app_account_token`: the UUID the app attached to the purchase.
        public var appAccountToken: String?
        /// `is_trial_period`: `"true"` for a free trial period.
        public var isTrialPeriod: String?
        /// `is_upgraded`: `"true"` for a subscription the customer upgraded from (its
        /// `cancellation_date` is the upgrade's, not a refund's).
        public var isUpgraded: String?

        /// Creates an entry.
        public init(
            transactionID: String?, originalTransactionID: String? = nil, productID: String?, quantity: Int? = 1,
            purchaseDate: Date? = nil, originalPurchaseDate: Date? = nil, expiresDate: Date? = nil,
            cancellationDate: Date? = nil, cancellationReason: String? = nil, webOrderLineItemID: String? = nil,
            appAccountToken: String? = nil, isTrialPeriod: String? = nil, isUpgraded: String? = nil
        ) {
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID
            self.productID = productID
            self.quantity = quantity
            self.purchaseDate = purchaseDate
            self.originalPurchaseDate = originalPurchaseDate
            self.expiresDate = expiresDate
            self.cancellationDate = cancellationDate
            self.cancellationReason = cancellationReason
            self.webOrderLineItemID = webOrderLineItemID
            self.appAccountToken = appAccountToken
            self.isTrialPeriod = isTrialPeriod
            self.isUpgraded = isUpgraded
        }

        enum CodingKeys: String, CodingKey {
            case transactionID = "transaction_id"
            case originalTransactionID = "original_transaction_id"
            case productID = "product_id"
            case quantity
            case purchaseDate = "purchase_date_ms"
            case originalPurchaseDate = "original_purchase_date_ms"
            case expiresDate = "expires_date_ms"
            case cancellationDate = "cancellation_date_ms"
            case cancellationReason = "cancellation_reason"
            case webOrderLineItemID = "web_order_line_item_id"
            case appAccountToken = "app_account_token"
            case isTrialPeriod = "is_trial_period"
            case isUpgraded = "is_upgraded"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            transactionID = container.lenientString(.transactionID)
            originalTransactionID = container.lenientString(.originalTransactionID)
            productID = container.lenientString(.productID)
            quantity = container.lenientInt(.quantity)
            purchaseDate = container.lenientMilliseconds(.purchaseDate)
            originalPurchaseDate = container.lenientMilliseconds(.originalPurchaseDate)
            expiresDate = container.lenientMilliseconds(.expiresDate)
            cancellationDate = container.lenientMilliseconds(.cancellationDate)
            cancellationReason = container.lenientString(.cancellationReason)
            webOrderLineItemID = container.lenientString(.webOrderLineItemID)
            appAccountToken = container.lenientString(.appAccountToken)
            isTrialPeriod = container.lenientString(.isTrialPeriod)
            isUpgraded = container.lenientString(.isUpgraded)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(transactionID, forKey: .transactionID)
            try container.encodeIfPresent(originalTransactionID, forKey: .originalTransactionID)
            try container.encodeIfPresent(productID, forKey: .productID)
            try container.encodeIfPresent(quantity.map(String.init), forKey: .quantity)
            try container.encodeMilliseconds(purchaseDate, forKey: .purchaseDate)
            try container.encodeMilliseconds(originalPurchaseDate, forKey: .originalPurchaseDate)
            try container.encodeMilliseconds(expiresDate, forKey: .expiresDate)
            try container.encodeMilliseconds(cancellationDate, forKey: .cancellationDate)
            try container.encodeIfPresent(cancellationReason, forKey: .cancellationReason)
            try container.encodeIfPresent(webOrderLineItemID, forKey: .webOrderLineItemID)
            try container.encodeIfPresent(appAccountToken, forKey: .appAccountToken)
            try container.encodeIfPresent(isTrialPeriod, forKey: .isTrialPeriod)
            try container.encodeIfPresent(isUpgraded, forKey: .isUpgraded)
        }
    }
}
