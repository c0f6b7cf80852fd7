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

/// The shapes of receipt the intake accepts: Apple's two, built in, and any plug-in store's
/// `store.kind` (``StoreEvidence/receiptKind``; Google Play's keep `google_play`).
public struct ReceiptKind: RawRepresentable, Codable, Hashable, Sendable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A base64 app receipt for `verifyReceipt` (`receipt_data`).
    public static let legacy = ReceiptKind(rawValue: "legacy")
    /// A StoreKit 2 signed transaction, a JWS (`signed_transaction`).
    public static let storekit2 = ReceiptKind(rawValue: "storekit2")
    /// A Google Play purchase token (`google_play`), stored as ``GooglePlayPurchase/canonicalJSON``:
    /// the kind Google's plug-in evidence keeps (``StoreEvidence/receiptKind``).
    public static let googlePlay = ReceiptKind(rawValue: "google_play")

    /// The kind a store's evidence is kept as (``StoreEvidence/rowKind``).
    public static func store(_ evidence: StoreEvidence) -> ReceiptKind {
        ReceiptKind(rawValue: evidence.rowKind)
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension ReceiptKind {
    /// A stored receipt's payload as the evidence it is.
    public static func evidence(_ kind: ReceiptKind?, _ payload: String) -> Evidence {
        switch kind {
        case .storekit2?: return .signedTransaction(payload)
        case let kind?:
            if let plugged = StoreEvidence(receiptKind: kind.rawValue, payload: payload) { return .store(plugged) }
            return .receipt(payload)
        case nil: return .receipt(payload)
        }
    }
}
