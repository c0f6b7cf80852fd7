extension VerifyReceiptResponse {
    /// `responseBody.Receipt`: the receipt that was sent, decoded
    /// ([Receipt](https://developer.apple.com/documentation/appstorereceipts/responsebody/receipt)).
    public struct Receipt: Codable, Hashable, Sendable {
        /// `bundle_id`: the app the receipt belongs to; must be ours.
        public var bundleID: String?
        /// `application_version`: the app version (`CFBundleVersion`).
        public var applicationVersion: String?
        /// `receipt_type`: `Production`, `ProductionSandbox`, ...
        public var receiptType: String?
        /// `in_app`: the in-app purchases in the receipt.
        public var inApp: [Transaction]

        /// Creates a receipt.
        /// - Parameters:
        ///   - bundleID: The app's bundle id.
        ///   - applicationVersion: The app version.
        ///   - receiptType: The receipt type.
        ///   - inApp: The in-app purchases.
        public init(
            bundleID: String?, applicationVersion: String? = nil, receiptType: String? = nil,
            inApp: [Transaction] = []
        ) {
            self.bundleID = bundleID
            self.applicationVersion = applicationVersion
            self.receiptType = receiptType
            self.inApp = inApp
        }

        enum CodingKeys: String, CodingKey {
            case bundleID = "bundle_id"
            case applicationVersion = "application_version"
            case receiptType = "receipt_type"
            case inApp = "in_app"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            bundleID = container.lenientString(.bundleID)
            applicationVersion = container.lenientString(.applicationVersion)
            receiptType = container.lenientString(.receiptType)
            inApp = (try? container.decodeIfPresent([Transaction].self, forKey: .inApp)) ?? []
        }
    }

    /// `responseBody.Pending_renewal_info`: what happens to a subscription at its next renewal
    /// ([Pending_renewal_info](https://developer.apple.com/documentation/appstorereceipts/responsebody/pending_renewal_info)).
    public struct PendingRenewal: Codable, Hashable, Sendable {
        /// `original_transaction_id` of the subscription.
        public var originalTransactionID: String?
        /// `product_id` of the subscription.
        public var productID: String?
        /// `auto_renew_product_id`: the product it renews into.
        public var autoRenewProductID: String?
        /// `auto_renew_status`: `"1"` renews, `"0"` the customer turned renewal off.
        public var autoRenewStatus: String?
        /// `expiration_intent`: why it expired, when it did.
        public var expirationIntent: String?
        /// `is_in_billing_retry_period`: `"1"` while Apple retries a failed renewal.
        public var isInBillingRetryPeriod: String?

        /// Creates an entry.
        public init(
            originalTransactionID: String?, productID: String?, autoRenewProductID: String? = nil,
            autoRenewStatus: String? = nil, expirationIntent: String? = nil, isInBillingRetryPeriod: String? = nil
        ) {
            self.originalTransactionID = originalTransactionID
            self.productID = productID
            self.autoRenewProductID = autoRenewProductID
            self.autoRenewStatus = autoRenewStatus
            self.expirationIntent = expirationIntent
            self.isInBillingRetryPeriod = isInBillingRetryPeriod
        }

        enum CodingKeys: String, CodingKey {
            case originalTransactionID = "original_transaction_id"
            case productID = "product_id"
            case autoRenewProductID = "auto_renew_product_id"
            case autoRenewStatus = "auto_renew_status"
            case expirationIntent = "expiration_intent"
            case isInBillingRetryPeriod = "is_in_billing_retry_period"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            originalTransactionID = container.lenientString(.originalTransactionID)
            productID = container.lenientString(.productID)
            autoRenewProductID = container.lenientString(.autoRenewProductID)
            autoRenewStatus = container.lenientString(.autoRenewStatus)
            expirationIntent = container.lenientString(.expirationIntent)
            isInBillingRetryPeriod = container.lenientString(.isInBillingRetryPeriod)
        }
    }
}
