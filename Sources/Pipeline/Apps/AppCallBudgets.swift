import PipelineCore

/// One app's call budgets (issue 30): the stores count calls per app (Apple per app, Google
/// per project), so another app's budgets are kept under its own names, `<app>/<budget>`.
/// The default app keeps the bare names, so a running deployment keeps its state.
public struct AppCallBudgets: CallBudgetKeeper {
    let prefix: String
    let keeper: any CallBudgetKeeper

    /// `keeper` itself for the default app (or the single-app settings' one), else `app`'s
    /// budgets in it under its own names.
    public static func of(_ app: AppScope?, in keeper: any CallBudgetKeeper) -> any CallBudgetKeeper {
        guard let app, !app.isDefault, let id = app.id else { return keeper }
        return AppCallBudgets(prefix: "\(id)\(AppScope.separator)", keeper: keeper)
    }

    public func reserve(
        _ budget: CallBudget, maxWait: Duration, now: @escaping @Sendable () -> Int64
    ) async throws -> (CallBudget.Grant, calls: Int) {
        try await keeper.reserve(named(budget), maxWait: maxWait, now: now)
    }

    public func pause(_ budget: CallBudget, until: Int64) async throws {
        try await keeper.pause(named(budget), until: until)
    }

    private func named(_ budget: CallBudget) -> CallBudget {
        var named = budget
        named.name = prefix + budget.name
        return named
    }
}
