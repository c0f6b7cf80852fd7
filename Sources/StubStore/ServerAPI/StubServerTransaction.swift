import Foundation

/// A transaction the stub's App Store Server API knows, as `POST /stub/transactions` takes it.
///
/// The signed forms are opaque to the stub: it serves exactly the strings it was given, so
/// whoever signs them (a test CA, Apple's test vectors) is the caller's business.
///
/// ```sh
/// curl -s localhost:8090/stub/transactions -d '{"transaction_id": "2000000000000001",
///   "signed_transaction": "eyJhbGciOi...", "environment": "Sandbox", "order_id": "MK5TTTVWJH"}'
/// ```
///
/// Left out: `original_transaction_id` is the transaction id, `environment` is `Production`,
/// `refunded` is `false`.
public struct StubServerTransaction: Codable, Hashable, Sendable {
    /// The transaction as a JWS, served as `signedTransactionInfo` / in `signedTransactions`.
    public var signedTransaction: String
    /// Its `transactionId`.
    public var transactionID: String
    /// Its `originalTransactionId`.
    public var originalTransactionID: String
    /// Which deployment knows it; the other answers `4040010`.
    public var environment: StubReceipt.Environment
    /// Whose it is: transactions with the same customer share a history. `nil` makes the
    /// ``originalTransactionID`` the customer, so unrelated registrations stay apart.
    public var customerID: String?
    /// The order id of the customer's e-mailed receipt, for Look Up Order ID.
    public var orderID: String?
    /// For a subscription: its group, which puts it in Get All Subscription Statuses.
    public var subscriptionGroupID: String?
    /// For a subscription: the renewal info as a JWS.
    public var signedRenewalInfo: String?
    /// For a subscription: its `status` (1 active, 2 expired, 3 billing retry, 4 grace period,
    /// 5 revoked); `nil` is 5 when refunded, else 1.
    public var subscriptionStatus: Int?
    /// Whether it was refunded, which puts it in Get Refund History.
    public var isRefunded: Bool

    /// Creates a transaction.
    /// - Parameters:
    ///   - signedTransaction: The transaction as a JWS.
    ///   - transactionID: Its id.
    ///   - originalTransactionID: Its original id; `nil` is `transactionID`.
    ///   - environment: Which deployment knows it.
    ///   - customerID: Whose it is; `nil` is the original transaction id.
    ///   - orderID: Its order id.
    ///   - subscriptionGroupID: Its subscription group.
    ///   - signedRenewalInfo: Its renewal info as a JWS.
    ///   - subscriptionStatus: Its subscription status.
    ///   - isRefunded: Whether it was refunded.
    public init(
        signedTransaction: String, transactionID: String, originalTransactionID: String? = nil,
        environment: StubReceipt.Environment = .production, customerID: String? = nil, orderID: String? = nil,
        subscriptionGroupID: String? = nil, signedRenewalInfo: String? = nil, subscriptionStatus: Int? = nil,
        isRefunded: Bool = false
    ) {
        self.signedTransaction = signedTransaction
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID ?? transactionID
        self.environment = environment
        self.customerID = customerID
        self.orderID = orderID
        self.subscriptionGroupID = subscriptionGroupID
        self.signedRenewalInfo = signedRenewalInfo
        self.subscriptionStatus = subscriptionStatus
        self.isRefunded = isRefunded
    }

    /// Whose history it is in.
    var customer: String { customerID ?? originalTransactionID }

    enum CodingKeys: String, CodingKey {
        case signedTransaction = "signed_transaction"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case environment
        case customerID = "customer_id"
        case orderID = "order_id"
        case subscriptionGroupID = "subscription_group_id"
        case signedRenewalInfo = "signed_renewal_info"
        case subscriptionStatus = "subscription_status"
        case isRefunded = "refunded"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let transactionID = try container.decode(String.self, forKey: .transactionID)
        guard !transactionID.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .transactionID, in: container, debugDescription: "transaction_id is empty")
        }
        self.init(
            signedTransaction: try container.decode(String.self, forKey: .signedTransaction),
            transactionID: transactionID,
            originalTransactionID: try container.decodeIfPresent(String.self, forKey: .originalTransactionID),
            environment: try container.decodeIfPresent(StubReceipt.Environment.self, forKey: .environment)
                ?? .production,
            customerID: try container.decodeIfPresent(String.self, forKey: .customerID),
            orderID: try container.decodeIfPresent(String.self, forKey: .orderID),
            subscriptionGroupID: try container.decodeIfPresent(String.self, forKey: .subscriptionGroupID),
            signedRenewalInfo: try container.decodeIfPresent(String.self, forKey: .signedRenewalInfo),
            subscriptionStatus: try container.decodeIfPresent(Int.self, forKey: .subscriptionStatus),
            isRefunded: try container.decodeIfPresent(Bool.self, forKey: .isRefunded) ?? false)
    }
}
