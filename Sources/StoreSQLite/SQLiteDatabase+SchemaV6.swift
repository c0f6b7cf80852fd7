import GRDB
import Store

extension SQLiteDatabase {
    /// v6: call budgets shared by every process that calls Apple (``RateBudgetStore``).
    ///
    /// - `call_budgets`: per budget (`appstore/<bundle>/<environment>/<endpoint>`), the next
    ///   free turn and the end of a pause after a `429`, in microseconds since 1970, with the
    ///   rates last used (for the console).
    /// - `call_budget_seconds`: calls booked per budget and second, for the console and the
    ///   budget-in-use metric; an hour is kept.
    static func createV6(_ db: Database) throws {
        for statement in PostgresCompatibleSchema.callBudgets { try db.execute(sql: statement) }
    }
}
