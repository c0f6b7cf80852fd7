/// Google Play's evidence under the names it had when it was built in.
///
/// Google Play is a plug-in store now (`google`), but what the releases that built it in
/// wrote outlives them: receipts rows of kind `google_play`, and validate messages that
/// carry a `google_play` purchase or a `google_notice`, queued or dead-lettered. While two
/// releases run side by side, a validator of the previous one also reads what this one
/// publishes. So Google's evidence keeps those names both ways, and only here; its payload
/// is the canonical JSON of ``GooglePlayPurchase`` or ``GoogleNotice``, which the rows
/// always held.
extension StoreEvidence {
    /// Google Play's id as a plug-in store.
    static let googlePlayStore = "google"
    static let googlePlayPurchaseKind = "purchase"
    /// The kind Google Play purchases' receipts rows have always had.
    static let googlePlayReceiptKind = "google_play"

    /// Google's kinds as rows, metrics and logs have always said them; nil for other stores'.
    var builtInKind: String? {
        guard store == Self.googlePlayStore else { return nil }
        switch kind {
        case Self.googlePlayPurchaseKind: return Self.googlePlayReceiptKind
        case Self.notificationKind: return "google_notice"
        default: return nil
        }
    }

    /// A Google Play purchase as the store's evidence (what an old `google_play` message holds).
    static func builtIn(_ purchase: GooglePlayPurchase) -> StoreEvidence {
        StoreEvidence(store: googlePlayStore, kind: googlePlayPurchaseKind, payload: purchase.canonicalJSON)
    }

    /// A Google Play notice as the store's evidence (what an old `google_notice` message holds).
    static func builtIn(_ notice: GoogleNotice) -> StoreEvidence {
        StoreEvidence(store: googlePlayStore, kind: notificationKind, payload: notice.canonicalJSON)
    }

    enum BuiltInGooglePlay {
        case purchase(GooglePlayPurchase)
        case notice(GoogleNotice)
    }

    /// This evidence as the built-in case it was, when it is Google Play's and reads as one;
    /// what does not read is carried as any store's evidence (and refused by Google's verifier).
    var builtInGooglePlay: BuiltInGooglePlay? {
        guard store == Self.googlePlayStore else { return nil }
        switch kind {
        case Self.googlePlayPurchaseKind: return GooglePlayPurchase(canonicalJSON: payload).map { .purchase($0) }
        case Self.notificationKind: return GoogleNotice(canonicalJSON: payload).map { .notice($0) }
        default: return nil
        }
    }

    /// The `store` label of the verify metrics: the store's id, and `google_play` for
    /// Google's, as dashboards and alerts have always named it.
    public var metricsStore: String { store == Self.googlePlayStore ? Self.googlePlayReceiptKind : store }
}
