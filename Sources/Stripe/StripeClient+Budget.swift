import Foundation
import PipelineCore
import StorePlugins

/// Stripe's basic rate limit, kept as one call budget: 100 read operations a second in live
/// mode, 25 in test mode (https://docs.stripe.com/rate-limits). Every call here is a read.
public struct StripeQuota: Sendable, Hashable {
    /// Read operations a second (Stripe may grant an account more).
    public var perSecond: Double
    /// How much of it to spend: the rest is for the game's backend (it creates the sessions
    /// with the same account) and the jitter between our clock and Stripe's.
    public var share: Double
    /// The longest a call waits in-process for its turn; past that its message is deferred.
    public var maxWait: Duration
    /// Which mode's budget: live and test mode are limited apart.
    public var mode: String

    public init(perSecond: Double = 100, share: Double = 0.5, maxWait: Duration = .seconds(10), mode: String = "live") {
        self.perSecond = perSecond
        self.share = share
        self.maxWait = maxWait
        self.mode = mode
    }

    /// Stripe's limit for a key of that mode.
    public static func forKey(testMode: Bool) -> StripeQuota {
        testMode ? StripeQuota(perSecond: 25, mode: "test") : StripeQuota()
    }

    /// The one budget every call books in.
    public var budget: CallBudget { CallBudget(name: "stripe/\(mode)/read", limit: perSecond, share: share) }
}

extension StripeClient {
    /// Books the call's turn in the read budget (shared through `budgets` by every process
    /// that calls Stripe) and sleeps until it comes.
    /// - Throws: ``StoreCallError/Code/overBudget`` when the turn is more than the quota's
    ///   `maxWait` away (with when to come back), or the budget cannot be read.
    func waitForTurn(_ call: String) async throws(StoreCallError) {
        try await budgets.waitForTurn(
            in: quota.budget, maxWait: quota.maxWait, store: "Stripe", call: call, now: now)
    }

    /// After a `429`: nobody calls Stripe for `wait`, in any process sharing the budget.
    func pause(for wait: Duration) async {
        await budgets.pause(quota.budget, for: wait, now: now())
    }
}
