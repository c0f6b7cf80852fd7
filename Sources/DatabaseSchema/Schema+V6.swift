extension Schema {
    /// v6: call budgets shared by every process that calls Apple (``CallBudgetRepository``).
    ///
    /// - `call_budgets`: per budget (`appstore/<bundle>/<environment>/<endpoint>`), the next
    ///   free turn and the end of a pause after a `429`, in microseconds since 1970, with the
    ///   rates last used (for the console).
    /// - `call_budget_seconds`: calls booked per budget and second, for the console and the
    ///   budget-in-use metric; an hour is kept.
    ///
    /// Both databases run the same statements.
    static let version6 = SchemaMigration(
        version: 6, summary: "call budgets shared by every process calling Apple",
        sqlite: callBudgets, postgres: callBudgets)

    private static let callBudgets = [
        """
        CREATE TABLE call_budgets (
          name TEXT PRIMARY KEY,
          next_slot_us BIGINT NOT NULL DEFAULT 0,
          paused_until_us BIGINT NOT NULL DEFAULT 0,
          limit_per_second DOUBLE PRECISION NOT NULL CHECK (limit_per_second > 0),
          per_second DOUBLE PRECISION NOT NULL CHECK (per_second > 0))
        """,
        """
        CREATE TABLE call_budget_seconds (
          name TEXT NOT NULL,
          second BIGINT NOT NULL,
          calls BIGINT NOT NULL CHECK (calls > 0),
          PRIMARY KEY (name, second))
        """,
    ]
}
