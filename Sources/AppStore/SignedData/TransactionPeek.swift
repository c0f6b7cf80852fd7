import Foundation
import PipelineCore

/// What a signed transaction says, read without checking its signature: enough to decide
/// whose it is and whether we know it, never enough to credit it. Whatever is credited is
/// verified again by the validator, as any posted transaction is.
public struct TransactionPeek: Hashable, Sendable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String?
    /// Lowercased, as app account tokens are kept.
    public var appAccountToken: String?
    /// Whether Apple refunded or revoked it (`revocationDate` is set).
    public var isRevoked: Bool
    /// The app it says it is of (`bundleId`).
    public var bundleID: String?

    /// Nil when `signedTransaction` is not a JWS whose payload is JSON with a transaction id.
    public init?(_ signedTransaction: String) {
        guard let object = CompactJWS.unverifiedPayload(signedTransaction),
            let id = object["transactionId"] as? String, !id.isEmpty
        else { return nil }
        transactionID = id
        originalTransactionID = (object["originalTransactionId"] as? String) ?? id
        productID = object["productId"] as? String
        appAccountToken = (object["appAccountToken"] as? String)?.lowercased()
        isRevoked = object["revocationDate"] != nil && !(object["revocationDate"] is NSNull)
        bundleID = object["bundleId"] as? String
    }
}
