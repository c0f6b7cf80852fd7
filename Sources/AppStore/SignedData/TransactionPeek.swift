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
    /// What it says the whole transaction cost, in millionths of ``currency`` (Apple's
    /// `price` is one unit's, in milli-units), and where (`storefront`): read only for the
    /// revenue ledger's back-fill of transactions the validator verified before prices were kept.
    public var priceMicros: Int64?
    public var currency: String?
    public var storefront: String?

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
        if let milli = (object["price"] as? NSNumber)?.int64Value, milli >= 0,
            let currency = object["currency"] as? String
        {
            let quantity = Int64((object["quantity"] as? NSNumber)?.intValue ?? 1)
            let (unit, overflow) = milli.multipliedReportingOverflow(by: 1000)
            let (total, again) = unit.multipliedReportingOverflow(by: max(quantity, 1))
            if !overflow && !again { (priceMicros, self.currency) = (total, currency) }
        }
        storefront = object["storefront"] as? String
    }

    /// The transaction `transactionID` as stored evidence holds it: a StoreKit 2 receipt
    /// (`storekit2`, a JWS) or, for one no receipt carried, an App Store notification; nil for
    /// any other evidence, or one about another transaction.
    public static func stored(
        _ transactionID: String, receiptKind: String?, receiptPayload: String?, notificationStore: String?,
        notificationPayload: String?
    ) -> TransactionPeek? {
        let peek: TransactionPeek?
        if receiptKind == "storekit2", let receiptPayload {
            peek = TransactionPeek(receiptPayload)
        } else if receiptKind == nil, notificationStore == StoreEvidence.appleStore, let notificationPayload {
            peek = TransactionPeek(notification: notificationPayload)
        } else {
            peek = nil
        }
        return peek?.transactionID == transactionID ? peek : nil
    }

    /// The transaction an App Store Server Notification carries (`data.signedTransactionInfo`).
    public init?(notification signedPayload: String) {
        guard let object = CompactJWS.unverifiedPayload(signedPayload),
            let signed = (object["data"] as? [String: Any])?["signedTransactionInfo"] as? String
        else { return nil }
        self.init(signed)
    }
}
