/// Evidence of a store (Apple, Google Play, Huawei AppGallery, Stripe, …):
/// what the store's module parsed at the intake, kept as canonical JSON the same module
/// reads back in the validator. Nothing between the two looks inside ``payload``.
public struct StoreEvidence: Codable, Hashable, Sendable {
    /// The store's id (`huawei`, `stripe`): the registry routes by it.
    public var store: String
    /// What it is within the store (`purchase`, `subscription`, `notification`).
    public var kind: String
    /// The store module's canonical JSON.
    public var payload: String

    public init(store: String, kind: String, payload: String) {
        self.store = store
        self.kind = kind
        self.payload = payload
    }

    /// The kind of every notification a plug-in store pushed: the intake keeps its store and
    /// payload, and hands it on as this kind.
    public static let notificationKind = "notification"

    /// The kind metrics and logs say, and plug-in stores' receipts rows keep: `store.kind`
    /// (`huawei.purchase`); Apple's and Google Play's keep the names they had when they were
    /// built in (`receipt`, `signed_transaction`, ...; `google_play`, `google_notice`).
    public var receiptKind: String { builtInAppleKind ?? builtInKind ?? "\(store).\(kind)" }

    /// The kind a receipts row keeps, and the intake's metrics say: ``receiptKind``, but
    /// Apple's `legacy` and `storekit2` as they always were.
    public var rowKind: String { appleRowKind ?? receiptKind }

    /// The evidence a stored `store.kind` (or `google_play`) receipt holds; nil when
    /// `receiptKind` names no plug-in.
    public init?(receiptKind: String, payload: String) {
        guard let (store, kind) = Self.storeAndKind(ofReceiptKind: receiptKind) else { return nil }
        self.init(store: store, kind: kind, payload: payload)
    }

    /// The plug-in store a stored `store.kind` (or `google_play`) receipt is of; nil when
    /// `receiptKind` names no plug-in.
    public static func store(ofReceiptKind receiptKind: String) -> String? {
        storeAndKind(ofReceiptKind: receiptKind)?.store
    }

    private static func storeAndKind(ofReceiptKind receiptKind: String) -> (store: String, kind: String)? {
        if receiptKind == googlePlayReceiptKind { return (googlePlayStore, googlePlayPurchaseKind) }
        let parts = receiptKind.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}
