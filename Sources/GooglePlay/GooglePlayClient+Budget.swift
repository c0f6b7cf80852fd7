import Foundation
import HTTPClient
import PipelineCore
import StorePlugins

/// Google's quota buckets, each 3,000 queries a minute by default, independent of the
/// others: subscriptions (subscriptionsv2, and `purchases.subscriptions`' acknowledge) and
/// one-time purchases (productsv2, acknowledge, consume, voided purchases).
/// https://developers.google.com/android-publisher/quotas
public struct GooglePlayQuota: Sendable, Hashable {
    /// Queries a minute in each bucket (Google's default; a project may be granted more).
    public var perMinute: Double
    /// How much of it to spend: the rest is room for the jitter between our clock and Google's.
    public var share: Double
    /// The longest a call waits in-process for its turn; past that its message is deferred.
    public var maxWait: Duration

    public init(perMinute: Double = 3000, share: Double = 0.9, maxWait: Duration = .seconds(10)) {
        self.perMinute = perMinute
        self.share = share
        self.maxWait = maxWait
    }

    /// The budget of the bucket `call` (`subscriptionsv2.get`, `products.consume`, ...) is in.
    public func budget(for call: String) -> CallBudget {
        let bucket = call.hasPrefix("subscriptions") ? "subscriptions" : "one_time_purchases"
        return CallBudget(name: "googleplay/\(bucket)", limit: perMinute / 60, share: share)
    }
}

extension GooglePlayClient {
    /// Books the call's turn in its bucket's budget (shared through `budgets` by every
    /// process that calls Google) and sleeps until it comes.
    /// - Throws: ``StoreCallError/Code/overBudget`` when the turn is more than the quota's
    ///   `maxWait` away (with when to come back), or the budget cannot be read.
    func waitForTurn(_ call: String) async throws(StoreCallError) {
        try await budgets.waitForTurn(
            in: quota.budget(for: call), maxWait: quota.maxWait, store: "Google Play", call: call, now: now)
    }

    /// After a `429`: nobody calls the bucket for `wait`, in any process sharing the budget.
    func pause(_ call: String, for wait: Duration) async {
        await budgets.pause(quota.budget(for: call), for: wait, now: now())
    }
}
