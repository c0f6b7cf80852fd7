/// The answer of Get Transaction Info
/// ([TransactionInfoResponse](https://developer.apple.com/documentation/appstoreserverapi/transactioninforesponse)).
public struct TransactionInfoResponse: Codable, Hashable, Sendable {
    /// `signedTransactionInfo`: the transaction as a JWS, signed by the App Store; verify it
    /// before trusting a word of it.
    public var signedTransactionInfo: String?

    /// Creates a response.
    /// - Parameter signedTransactionInfo: The signed transaction.
    public init(signedTransactionInfo: String?) {
        self.signedTransactionInfo = signedTransactionInfo
    }
}
