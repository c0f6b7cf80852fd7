import Foundation

/// The body of `orders.reviewrefund`: our answer to a pending refund review (a chargeback
/// Google asks us about), within 24 hours of its notification.
/// https://developers.google.com/android-publisher/api-ref/rest/v3/orders/reviewrefund
///
/// `consumptionUsageEvents` (each use of the item, with the player's ids and coarse
/// location) is not sent: the ledger knows balances, not uses, and the ids are personal.
public struct RefundReviewRequest: Codable, Hashable, Sendable {
    /// The token the pending refund review notification carried.
    public var pendingRefundToken: String
    /// Whether a free sample, trial or description of the item was given before the purchase.
    public var sampleContentProvided: Bool
    /// `APPROVE`, `DECLINE` or `NEUTRAL`.
    public var refundPreference: String
    /// The share of the purchase the player consumed, 0 to 100,000 (45200 is 45.2 %).
    public var consumptionPercentageMilliunits: Int?

    public init(
        pendingRefundToken: String, sampleContentProvided: Bool, refundPreference: String,
        consumptionPercentageMilliunits: Int? = nil
    ) {
        self.pendingRefundToken = pendingRefundToken
        self.sampleContentProvided = sampleContentProvided
        self.refundPreference = refundPreference
        self.consumptionPercentageMilliunits = consumptionPercentageMilliunits
    }

    /// The JSON sent, keys sorted.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
