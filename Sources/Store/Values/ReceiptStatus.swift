import PipelineCore

/// Where a receipt is in the pipeline, as `GET /v1/receipts/{id}` shows it.
public enum ReceiptStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// Committed by the intake; the broker has not confirmed it yet.
    case received
    /// On the validate queue.
    case validating
    /// A verify attempt failed transiently; it waits on a delay tier.
    case retrying
    case credited
    case rejected
    /// Dead-lettered after its attempts ran out, or as poison.
    case dead

    /// Credited, rejected and dead are final: no later verdict changes the receipt.
    public var isFinal: Bool {
        switch self {
        case .credited, .rejected, .dead: true
        case .received, .validating, .retrying: false
        }
    }
}

/// The shapes of receipt the intake accepts.
public enum ReceiptKind: String, Codable, Hashable, Sendable, CaseIterable {
    /// A base64 app receipt for `verifyReceipt` (`receipt_data`).
    case legacy
    /// A StoreKit 2 signed transaction, a JWS (`signed_transaction`).
    case storekit2
    /// A Google Play purchase token (`google_play`), stored as ``GooglePlayPurchase/canonicalJSON``.
    case googlePlay = "google_play"
}

extension ReceiptKind {
    /// A stored receipt's payload as the evidence it is.
    public static func evidence(_ kind: ReceiptKind?, _ payload: String) -> Evidence {
        switch kind {
        case .storekit2: .signedTransaction(payload)
        case .googlePlay:
            // The intake stored it canonical; anything else is verified as nothing Google knows.
            .googlePlay(
                GooglePlayPurchase(canonicalJSON: payload)
                    ?? GooglePlayPurchase(packageName: "", productID: "", purchaseToken: ""))
        case .legacy, nil: .receipt(payload)
        }
    }
}
