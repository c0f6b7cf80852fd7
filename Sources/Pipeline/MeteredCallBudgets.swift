import Database
import Metrics
import Observability
import PipelineCore
import Repositories
import SettlementWriter

/// Call budgets kept in the pipeline's store (shared by every process), their use exported
/// as metrics: calls booked, calls deferred, `429` pauses, the budget in use and how far
/// ahead it is booked, each by budget name.
public struct MeteredCallBudgets: CallBudgetKeeper {
    let keeper: any CallBudgetKeeper

    /// - Parameter keeper: Where the budgets are kept.
    public init(_ keeper: any CallBudgetKeeper) {
        self.keeper = keeper
    }

    /// The budgets in `database`, metered: what every process that calls Apple should use.
    public static func shared(_ database: any SQLDatabase) -> MeteredCallBudgets {
        MeteredCallBudgets(CallBudgetRepository(database))
    }

    public func reserve(
        _ budget: CallBudget, maxWait: Duration, now: @escaping @Sendable () -> Int64
    ) async throws -> (CallBudget.Grant, calls: Int) {
        let (grant, calls) = try await keeper.reserve(budget, maxWait: maxWait, now: now)
        let now = now()
        let dimensions = [("budget", budget.name)]
        switch grant {
        case .go(let at):
            Counter(label: MetricName.apiCalls, dimensions: dimensions).increment()
            Gauge(label: MetricName.apiBudgetUsed, dimensions: dimensions).record(Double(calls) / budget.limit)
            Gauge(label: MetricName.apiBudgetBookedAhead, dimensions: dimensions)
                .record(max(0, Double(at - now) / 1_000_000))
        case .later(let at):
            Counter(label: MetricName.apiCallsDeferred, dimensions: dimensions).increment()
            Gauge(label: MetricName.apiBudgetBookedAhead, dimensions: dimensions)
                .record(max(0, Double(at - now) / 1_000_000))
        }
        return (grant, calls)
    }

    public func pause(_ budget: CallBudget, until: Int64) async throws {
        Counter(label: MetricName.apiRateLimited, dimensions: [("budget", budget.name)]).increment()
        try await keeper.pause(budget, until: until)
    }
}
