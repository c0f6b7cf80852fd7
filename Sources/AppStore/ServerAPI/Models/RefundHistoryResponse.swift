/// One page of Get Refund History (v2)
/// ([RefundHistoryResponse](https://developer.apple.com/documentation/appstoreserverapi/refundhistoryresponse)),
/// or, from ``AppStoreServerAPIClient/getCompleteRefundHistory(transactionID:revision:)``, every
/// page joined.
public struct RefundHistoryResponse: Codable, Hashable, Sendable, AppStoreServerAPIPage {
    /// `signedTransactions`: the refunded transactions as JWS, signed by the App Store.
    public var signedTransactions: [String]?
    /// `revision`: the token that asks for the next page.
    public var revision: String?
    /// `hasMore`: whether another page follows.
    public var hasMore: Bool?

    /// Creates a page.
    public init(signedTransactions: [String]? = nil, revision: String? = nil, hasMore: Bool? = nil) {
        self.signedTransactions = signedTransactions
        self.revision = revision
        self.hasMore = hasMore
    }
}
