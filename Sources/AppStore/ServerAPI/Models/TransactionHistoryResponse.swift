/// One page of Get Transaction History (v2)
/// ([HistoryResponse](https://developer.apple.com/documentation/appstoreserverapi/historyresponse)),
/// or, from ``AppStoreServerAPIClient/getCompleteTransactionHistory(transactionID:revision:)``,
/// every page joined.
public struct TransactionHistoryResponse: Codable, Hashable, Sendable, AppStoreServerAPIPage {
    /// `revision`: the token that asks for the next page (or, on the last page, for what
    /// changes later).
    public var revision: String?
    /// `hasMore`: whether another page follows.
    public var hasMore: Bool?
    /// `bundleId`: the app's bundle id.
    public var bundleID: String?
    /// `appAppleId`: the app's id in the App Store; absent in the sandbox.
    public var appAppleID: Int64?
    /// `environment`: `Production`, `Sandbox`, ...; the raw value, so a new one still decodes.
    public var environment: String?
    /// `signedTransactions`: the transactions as JWS, signed by the App Store.
    public var signedTransactions: [String]?

    /// Creates a page.
    public init(
        revision: String? = nil, hasMore: Bool? = nil, bundleID: String? = nil, appAppleID: Int64? = nil,
        environment: String? = nil, signedTransactions: [String]? = nil
    ) {
        self.revision = revision
        self.hasMore = hasMore
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environment = environment
        self.signedTransactions = signedTransactions
    }

    enum CodingKeys: String, CodingKey {
        case revision, hasMore
        case bundleID = "bundleId"
        case appAppleID = "appAppleId"
        case environment, signedTransactions
    }
}
