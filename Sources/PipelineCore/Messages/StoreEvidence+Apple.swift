import Foundation

/// Apple's evidence: a store's like any other (`apple`), under the names it had when Apple
/// was built in.
///
/// Receipts rows keep the kinds `legacy` and `storekit2`, logs and metrics say `receipt`,
/// `signed_transaction`, `notification` and `subscription_check`, and validate messages carry
/// `receipt_data`, `signed_transaction`, `signed_payload` or `subscription_check` rather than
/// `store_evidence`, both ways: what earlier releases queued, dead-lettered or stored still
/// reads, and their validators read what this one publishes.
extension StoreEvidence {
    /// Apple's id as a store.
    public static let appleStore = "apple"

    /// Apple's kinds of evidence, as logs and metrics name them.
    public enum AppleKind: String, Sendable, CaseIterable {
        /// A legacy base64 app receipt, passed to `verifyReceipt` untouched.
        case receipt
        /// A StoreKit 2 signed transaction (JWS).
        case signedTransaction = "signed_transaction"
        /// An App Store Server Notification V2 as Apple posted it (`signedPayload`, JWS).
        case notification
        /// The scheduler's question about a subscription around its expiry; its payload is
        /// JSON (``appleCheck(original:latestReceipt:)``).
        case subscriptionCheck = "subscription_check"
    }

    /// Apple's evidence of `kind` holding `payload` as is.
    public static func apple(_ kind: AppleKind, _ payload: String) -> StoreEvidence {
        StoreEvidence(store: appleStore, kind: kind.rawValue, payload: payload)
    }

    /// A subscription check: Apple's Server API is asked by `original` transaction id, or
    /// `verifyReceipt` with `latestReceipt`.
    public static func appleCheck(original: String, latestReceipt: String?) -> StoreEvidence {
        var fields = [checkOriginal: original]
        fields[checkLatest] = latestReceipt
        let json = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        return apple(.subscriptionCheck, String(decoding: json, as: UTF8.self))
    }

    private static let checkOriginal = "original_transaction_id"
    private static let checkLatest = "latest_receipt"

    public enum BuiltInApple: Hashable, Sendable {
        case receipt(String)
        case signedTransaction(String)
        case notification(signedPayload: String)
        case subscriptionCheck(originalTransactionID: String, latestReceipt: String?)
    }

    /// This evidence as the kind of Apple's it is; nil for another store's, or a kind of
    /// Apple's that does not read (refused by Apple's verifier).
    public var builtInApple: BuiltInApple? {
        guard store == Self.appleStore, let kind = AppleKind(rawValue: kind) else { return nil }
        switch kind {
        case .receipt: return .receipt(payload)
        case .signedTransaction: return .signedTransaction(payload)
        case .notification: return .notification(signedPayload: payload)
        case .subscriptionCheck:
            guard
                let fields = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: String],
                let original = fields[Self.checkOriginal]
            else { return nil }
            return .subscriptionCheck(originalTransactionID: original, latestReceipt: fields[Self.checkLatest])
        }
    }

    /// Apple's kinds as logs and metrics have always named them; nil for other stores'.
    var builtInAppleKind: String? {
        store == Self.appleStore && AppleKind(rawValue: kind) != nil ? kind : nil
    }

    /// Apple's receipts as their rows have always named them (`legacy`, `storekit2`); nil
    /// for other evidence.
    var appleRowKind: String? {
        guard store == Self.appleStore else { return nil }
        switch AppleKind(rawValue: kind) {
        case .receipt?: return "legacy"
        case .signedTransaction?: return "storekit2"
        default: return nil
        }
    }
}

extension Evidence {
    /// A legacy base64 app receipt, passed to `verifyReceipt` untouched.
    public static func receipt(_ data: String) -> Evidence { .store(.apple(.receipt, data)) }

    /// A StoreKit 2 signed transaction (JWS).
    public static func signedTransaction(_ jws: String) -> Evidence { .store(.apple(.signedTransaction, jws)) }

    /// An App Store Server Notification V2 as Apple posted it (`signedPayload`, JWS).
    public static func notification(signedPayload: String) -> Evidence { .store(.apple(.notification, signedPayload)) }

    /// The scheduler's question about a subscription around its expiry: Apple's Server API
    /// is asked by original transaction id, or `verifyReceipt` with the latest receipt.
    public static func subscriptionCheck(originalTransactionID: String, latestReceipt: String?) -> Evidence {
        .store(.appleCheck(original: originalTransactionID, latestReceipt: latestReceipt))
    }

    /// The legacy receipt `verifyReceipt` is asked about: the receipt's, or a check's latest.
    public var legacyReceipt: String? {
        switch storeEvidence.builtInApple {
        case .receipt(let data)?: data
        case .subscriptionCheck(_, let latest)?: latest
        default: nil
        }
    }

    public var signedTransaction: String? {
        if case .signedTransaction(let jws)? = storeEvidence.builtInApple { return jws }
        return nil
    }

    public var signedPayload: String? {
        if case .notification(let payload)? = storeEvidence.builtInApple { return payload }
        return nil
    }

    /// The subscription a check asks about.
    public var checkedSubscription: String? {
        if case .subscriptionCheck(let original, _)? = storeEvidence.builtInApple { return original }
        return nil
    }
}
