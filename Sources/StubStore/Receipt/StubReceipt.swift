import Foundation
import PipelineCore

/// A receipt the stub store issues and can check: what a real app receipt would prove,
/// in a form a test or a person can write by hand.
///
/// The pipeline never looks inside: it passes ``encoded(signingKey:)`` on as `receipt-data`
/// untouched, exactly as it would pass on Apple's PKCS #7 receipt. Only the stub store that
/// holds the same signing key can read and vouch for it.
///
/// ```swift
/// let receipt = StubReceipt(
///     bundleID: "com.example.game",
///     transactions: [.init(transactionID: "1000000000000001", productID: "com.example.coins100")]
/// )
/// let receiptData = receipt.encoded(signingKey: StubStoreConfiguration.developmentSigningKey)
/// ```
///
/// The JSON keys are snake case, as in `POST /stub/receipts`; dates are ISO 8601.
public struct StubReceipt: Codable, Hashable, Sendable {
    /// The app's bundle id, answered as `receipt.bundle_id`.
    public var bundleID: String
    /// The app version, answered as `receipt.application_version`.
    public var applicationVersion: String
    /// `Production` or `Sandbox`, as Apple spells it; kept raw so any value round-trips.
    public var rawEnvironment: String
    /// The purchases the receipt holds, answered as `receipt.in_app` (and, for
    /// subscriptions, `latest_receipt_info`).
    public var transactions: [Transaction]
    /// When the receipt was issued (`receipt_creation_date_ms`).
    public var createdAt: Date
    /// The first this-many verify requests for this receipt, at its own environment, answer
    /// ``transientStatus`` instead of `0`: a receipt Apple is slow to know about.
    public var failFirst: Int?
    /// Until this moment (by the stub's clock) verify requests answer ``transientStatus``.
    public var transientUntil: Date?
    /// The status answered while the receipt fails transiently; `21100` (an internal data
    /// access error, answered with `"is-retryable": true`) unless set. `21002`, `21005`,
    /// `21009` and anything in `21100...21199` make sense here.
    public var transientStatus: Int?

    /// Creates a receipt.
    /// - Parameters:
    ///   - bundleID: The app's bundle id.
    ///   - applicationVersion: The app version in the receipt.
    ///   - environment: Where the purchase was made.
    ///   - transactions: The purchases the receipt holds.
    ///   - createdAt: When the receipt was issued.
    ///   - failFirst: How many verify requests fail transiently before it verifies.
    ///   - transientUntil: Until when verify requests fail transiently.
    ///   - transientStatus: The status answered while failing transiently.
    public init(
        bundleID: String, applicationVersion: String = "1", environment: Environment = .production,
        transactions: [Transaction], createdAt: Date = Date(timeIntervalSince1970: 1_700_000_000),
        failFirst: Int? = nil, transientUntil: Date? = nil, transientStatus: Int? = nil
    ) {
        self.bundleID = bundleID
        self.applicationVersion = applicationVersion
        self.rawEnvironment = environment.rawValue
        self.transactions = transactions
        self.createdAt = createdAt
        self.failFirst = failFirst
        self.transientUntil = transientUntil
        self.transientStatus = transientStatus
    }

    /// The environment, or `nil` if ``rawEnvironment`` names neither.
    public var environment: Environment? { Environment(rawValue: rawEnvironment) }

    enum CodingKeys: String, CodingKey {
        case bundleID = "bundle_id"
        case applicationVersion = "application_version"
        case rawEnvironment = "environment"
        case transactions
        case createdAt = "created_at"
        case failFirst = "fail_first"
        case transientUntil = "transient_until"
        case transientStatus = "transient_status"
    }
}

extension StubReceipt {
    /// Apple's two receipt environments.
    public enum Environment: String, Codable, Hashable, Sendable, CaseIterable {
        case production = "Production"
        case sandbox = "Sandbox"
    }

    /// One purchase in a ``StubReceipt``, answered as one `in_app` entry.
    public struct Transaction: Codable, Hashable, Sendable {
        /// Apple's `transaction_id`: unique per purchase and per renewal.
        public var transactionID: String
        /// Apple's `original_transaction_id`: the first purchase of a subscription.
        public var originalTransactionID: String
        /// The product bought (`product_id`).
        public var productID: String
        /// How many were bought (`quantity`, a string on the wire).
        public var quantity: Int
        /// When it was bought (`purchase_date_ms`).
        public var purchaseDate: Date
        /// For subscriptions: the end of the period paid for (`expires_date_ms`). A receipt with
        /// any expiry is answered with `latest_receipt_info`, as Apple answers receipts that
        /// hold auto-renewable subscriptions.
        public var expiresDate: Date?
        /// When Apple refunded or revoked it (`cancellation_date_ms`).
        public var cancellationDate: Date?
        /// Why: `"1"` an issue in the app, `"0"` another reason (`cancellation_reason`).
        public var cancellationReason: String?
        /// The subscription purchase event id (`web_order_line_item_id`).
        public var webOrderLineItemID: String?
        /// The UUID the app attached to the purchase (`app_account_token`).
        public var appAccountToken: String?

        /// Creates a transaction.
        /// - Parameters:
        ///   - transactionID: Apple's transaction id.
        ///   - originalTransactionID: The original transaction id; `transactionID` when `nil`.
        ///   - productID: The product bought.
        ///   - quantity: How many were bought.
        ///   - purchaseDate: When it was bought.
        ///   - expiresDate: For subscriptions, the end of the period paid for.
        ///   - cancellationDate: When it was refunded or revoked.
        ///   - cancellationReason: `"0"` or `"1"`, as Apple answers it.
        ///   - webOrderLineItemID: The subscription purchase event id.
        ///   - appAccountToken: The UUID the app attached to the purchase.
        public init(
            transactionID: String, originalTransactionID: String? = nil, productID: String, quantity: Int = 1,
            purchaseDate: Date = Date(timeIntervalSince1970: 1_700_000_000), expiresDate: Date? = nil,
            cancellationDate: Date? = nil, cancellationReason: String? = nil, webOrderLineItemID: String? = nil,
            appAccountToken: String? = nil
        ) {
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID ?? transactionID
            self.productID = productID
            self.quantity = quantity
            self.purchaseDate = purchaseDate
            self.expiresDate = expiresDate
            self.cancellationDate = cancellationDate
            self.cancellationReason = cancellationReason
            self.webOrderLineItemID = webOrderLineItemID
            self.appAccountToken = appAccountToken
        }

        enum CodingKeys: String, CodingKey {
            case transactionID = "transaction_id"
            case originalTransactionID = "original_transaction_id"
            case productID = "product_id"
            case quantity
            case purchaseDate = "purchase_date"
            case expiresDate = "expires_date"
            case cancellationDate = "cancellation_date"
            case cancellationReason = "cancellation_reason"
            case webOrderLineItemID = "web_order_line_item_id"
            case appAccountToken = "app_account_token"
        }
    }
}
