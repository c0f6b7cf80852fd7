import Foundation

/// A receipt as the intake committed it: the body of a message on the validate queue.
///
/// Exactly one of ``receiptData`` (a legacy base64 app receipt, passed on to
/// `verifyReceipt` untouched), ``signedTransaction`` (a StoreKit 2 JWS) and
/// ``signedPayload`` (an App Store Server Notification V2, JWS) is set.
public struct Submission: Codable, Hashable, Sendable {
    public var receiptID: String
    public var accountID: String
    public var receiptData: String?
    public var signedTransaction: String?
    /// An App Store Server Notification V2 as Apple posted it; ``accountID`` is empty.
    public var signedPayload: String?
    public var orderID: String?
    /// What the client believes it bought; Apple's answer decides, this is only compared.
    public var productID: String?
    /// Set by the subscription scheduler: the original transaction id of the subscription
    /// to ask Apple about (through the App Store Server API, or `verifyReceipt` with
    /// ``receiptData``, the latest receipt that carried it).
    public var subscriptionCheck: String?
    public var submittedAt: Date

    public init(
        receiptID: String, accountID: String, receiptData: String? = nil, signedTransaction: String? = nil,
        signedPayload: String? = nil, orderID: String? = nil, productID: String? = nil,
        subscriptionCheck: String? = nil, submittedAt: Date
    ) {
        self.receiptID = receiptID
        self.accountID = accountID
        self.receiptData = receiptData
        self.signedTransaction = signedTransaction
        self.signedPayload = signedPayload
        self.orderID = orderID
        self.productID = productID
        self.subscriptionCheck = subscriptionCheck
        self.submittedAt = submittedAt
    }

    enum CodingKeys: String, CodingKey {
        case receiptID = "receipt_id"
        case accountID = "account_id"
        case receiptData = "receipt_data"
        case signedTransaction = "signed_transaction"
        case signedPayload = "signed_payload"
        case orderID = "order_id"
        case productID = "product_id"
        case subscriptionCheck = "subscription_check"
        case submittedAt = "submitted_at"
    }
}
