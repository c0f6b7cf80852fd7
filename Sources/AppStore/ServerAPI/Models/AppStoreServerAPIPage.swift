/// A page of a paged answer (transaction or refund history), so one loop can follow either.
protocol AppStoreServerAPIPage: Decodable, Sendable {
    /// The page's transactions.
    var signedTransactions: [String]? { get set }
    /// The token for the next page.
    var revision: String? { get set }
    /// Whether another page follows.
    var hasMore: Bool? { get set }
}
