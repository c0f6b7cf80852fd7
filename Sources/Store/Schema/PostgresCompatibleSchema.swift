import Foundation

/// Statements both SQLite and PostgreSQL run as they are.
public enum PostgresCompatibleSchema {
    public static let callBudgets = [
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
