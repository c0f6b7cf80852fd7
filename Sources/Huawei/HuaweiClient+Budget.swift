import Foundation
import PipelineCore
import StorePlugins

/// The pace of calls to Huawei's Order and Subscription services, kept as one call budget
/// every process shares. Huawei publishes no rate limit for them but does answer `429` to
/// an app that calls too fast, so the pipeline keeps to a pace the operator sets
/// (`IAP_HUAWEI_CALLS_PER_SECOND`) rather than find Huawei's by its refusals.
public struct HuaweiQuota: Sendable, Hashable {
    public static let variable = "IAP_HUAWEI_CALLS_PER_SECOND"
    /// Enough for a busy game's purchases and confirmations, and modest for a server that names no limit.
    public static let defaultPerSecond = 50
    public static let allowedPerSecond = 1...1000

    /// Calls a second, every process and both services together.
    public var perSecond: Double
    /// The longest a call waits in-process for its turn; past that its message is deferred.
    public var maxWait: Duration

    public init(perSecond: Double = Double(defaultPerSecond), maxWait: Duration = .seconds(10)) {
        self.perSecond = perSecond
        self.maxWait = maxWait
    }

    /// The quota `IAP_HUAWEI_CALLS_PER_SECOND` asks for.
    /// - Throws: ``SettingError`` naming the variable when it is not a whole number in ``allowedPerSecond``.
    public init(environment env: EnvironmentReader) throws(SettingError) {
        self.init(
            perSecond: Double(try env.int(Self.variable, default: Self.defaultPerSecond, range: Self.allowedPerSecond)))
    }

    /// The budget of one app (its OAuth client id): each app's calls are counted apart.
    public func budget(clientID: String) -> CallBudget {
        CallBudget(name: "huawei/\(clientID)", limit: perSecond)
    }

    /// The budget of one app's reads for notifications, apart from its purchases': a flood of
    /// notices (Huawei's order notices are not signed) waits in its own line and never delays
    /// a purchase. A fifth of the pace, at least one call a second.
    public func noticeBudget(clientID: String) -> CallBudget {
        CallBudget(name: "huawei/\(clientID)/notices", limit: max(1, perSecond / 5))
    }
}

extension HuaweiClient {
    var budget: CallBudget {
        forNotices
            ? settings.quota.noticeBudget(clientID: settings.clientID)
            : settings.quota.budget(clientID: settings.clientID)
    }

    /// This client with its calls booked in the app's budget for notices (``HuaweiQuota/noticeBudget(clientID:)``).
    var readingNotices: HuaweiClient {
        HuaweiClient(
            settings: settings, httpClient: http, timeout: timeout, budgets: budgets, now: now, tokens: tokens,
            forNotices: true)
    }

    /// Books the call's turn in the app's budget (shared through `budgets` by every process
    /// that calls Huawei) and sleeps until it comes.
    /// - Throws: ``StoreCallError/Code/overBudget`` when the turn is more than the quota's
    ///   `maxWait` away (with when to come back), or the budget cannot be read.
    func waitForTurn(_ call: String) async throws(StoreCallError) {
        try await budgets.waitForTurn(
            in: budget, maxWait: settings.quota.maxWait, store: "Huawei", call: call, now: now)
    }

    /// After a `429`: nobody calls Huawei for `wait`, in any process sharing the budget.
    func pause(for wait: Duration) async {
        await budgets.pause(budget, for: wait, now: now())
    }
}
