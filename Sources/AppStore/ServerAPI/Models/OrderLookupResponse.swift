/// The answer of Look Up Order ID
/// ([OrderLookupResponse](https://developer.apple.com/documentation/appstoreserverapi/orderlookupresponse)).
///
/// An order id Apple does not know is not an HTTP error: it is `status` `1` with no transactions.
public struct OrderLookupResponse: Codable, Hashable, Sendable {
    /// `status` as sent: `0` valid, `1` invalid.
    public var rawStatus: Int?
    /// `signedTransactions`: the order's transactions as JWS, signed by the App Store.
    public var signedTransactions: [String]?

    /// What `status` means
    /// ([OrderLookupStatus](https://developer.apple.com/documentation/appstoreserverapi/orderlookupstatus)).
    public enum Status: Int, Hashable, Sendable {
        /// `0`: the order id is valid and has transactions.
        case valid = 0
        /// `1`: the order id is not known.
        case invalid = 1
    }

    /// `status`, typed; `nil` for a value this code does not know.
    public var status: Status? { rawStatus.flatMap(Status.init(rawValue:)) }

    /// Creates a response.
    /// - Parameters:
    ///   - status: `0` valid, `1` invalid.
    ///   - signedTransactions: The order's signed transactions.
    public init(status: Int?, signedTransactions: [String]?) {
        self.rawStatus = status
        self.signedTransactions = signedTransactions
    }

    enum CodingKeys: String, CodingKey {
        case rawStatus = "status"
        case signedTransactions
    }
}
