import Foundation

/// The body of a `verifyReceipt` answer, shaped as Apple's
/// ([responseBody](https://developer.apple.com/documentation/appstorereceipts/responsebody)):
/// timestamps and quantities are strings, keys are snake case, `is-retryable` is hyphenated.
struct StubVerifyResponse: Encodable, Sendable {
    var status: Int
    var environment: String?
    var isRetryable: Bool?
    var receipt: Receipt?
    var latestReceiptInfo: [InApp]?
    var latestReceipt: String?
    var pendingRenewalInfo: [PendingRenewal]?

    enum CodingKeys: String, CodingKey {
        case status, environment, receipt
        case isRetryable = "is-retryable"
        case latestReceiptInfo = "latest_receipt_info"
        case latestReceipt = "latest_receipt"
        case pendingRenewalInfo = "pending_renewal_info"
    }

    /// `responseBody.Receipt`.
    struct Receipt: Encodable, Sendable {
        var receiptType: String
        var bundleID: String
        var applicationVersion: String
        var originalApplicationVersion: String
        var receiptCreationDate: AppleDate
        var requestDate: AppleDate
        var inApp: [InApp]

        enum CodingKeys: String, CodingKey {
            case receiptType = "receipt_type"
            case bundleID = "bundle_id"
            case applicationVersion = "application_version"
            case originalApplicationVersion = "original_application_version"
            case receiptCreationDate = "receipt_creation_date"
            case requestDate = "request_date"
            case inApp = "in_app"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(receiptType, forKey: .receiptType)
            try container.encode(bundleID, forKey: .bundleID)
            try container.encode(applicationVersion, forKey: .applicationVersion)
            try container.encode(originalApplicationVersion, forKey: .originalApplicationVersion)
            try receiptCreationDate.encode(into: encoder, key: "receipt_creation_date")
            try requestDate.encode(into: encoder, key: "request_date")
            try container.encode(inApp, forKey: .inApp)
        }
    }

    /// `responseBody.Receipt.In_app` and `responseBody.Latest_receipt_info`: the same shape.
    struct InApp: Encodable, Sendable {
        var transaction: StubReceipt.Transaction
        var isSubscription: Bool

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            let t = transaction
            try container.encode(String(t.quantity), forKey: "quantity")
            try container.encode(t.productID, forKey: "product_id")
            try container.encode(t.transactionID, forKey: "transaction_id")
            try container.encode(t.originalTransactionID, forKey: "original_transaction_id")
            try AppleDate(t.purchaseDate).encode(into: encoder, key: "purchase_date")
            try AppleDate(t.purchaseDate).encode(into: encoder, key: "original_purchase_date")
            if let expires = t.expiresDate {
                try AppleDate(expires).encode(into: encoder, key: "expires_date")
            }
            if let cancelled = t.cancellationDate {
                try AppleDate(cancelled).encode(into: encoder, key: "cancellation_date")
                try container.encode(t.cancellationReason ?? "0", forKey: "cancellation_reason")
            }
            if let webOrder = t.webOrderLineItemID {
                try container.encode(webOrder, forKey: "web_order_line_item_id")
            }
            if let token = t.appAccountToken {
                try container.encode(token, forKey: "app_account_token")
            }
            if isSubscription {
                try container.encode("false", forKey: "is_trial_period")
                try container.encode("false", forKey: "is_in_intro_offer_period")
            }
            try container.encode("PURCHASED", forKey: "in_app_ownership_type")
        }
    }

    /// `responseBody.Pending_renewal_info`, one per subscription.
    struct PendingRenewal: Encodable, Sendable {
        var productID: String
        var originalTransactionID: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(productID, forKey: "auto_renew_product_id")
            try container.encode(productID, forKey: "product_id")
            try container.encode(originalTransactionID, forKey: "original_transaction_id")
            try container.encode("1", forKey: "auto_renew_status")
        }
    }
}
