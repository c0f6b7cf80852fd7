import Database
import Foundation
import PipelineCore

// MARK: - Call budgets: Apple's rate limits, shared by every process

/// Call budgets (``CallBudget``) kept in the pipeline's database, so that every validator
/// and fulfiller process calling Apple books its turns in one place.
///
/// The rule is ``CallBudget/reserve(in:now:maxWait:)``; this store only reads and writes
/// its state, one short transaction per booking, with the budget's row locked (PostgreSQL:
/// `FOR UPDATE`; SQLite's writes are one at a time already) so two processes never take
/// one turn. Each booking also counts its second in `call_budget_seconds`, for the console
/// and the budget-in-use metric; rows older than an hour go as new seconds begin.
public struct CallBudgetRepository: CallBudgetKeeper {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// How long per-second counts are kept.
    static let kept: Int64 = 3600

    public func reserve(
        _ budget: CallBudget, maxWait: Duration, now: @escaping @Sendable () -> Int64
    ) async throws -> (CallBudget.Grant, calls: Int) {
        try await database.transaction { db in
            var state = try await Self.state(of: budget, in: db)
            let grant = budget.reserve(in: &state, now: now(), maxWait: maxWait)
            guard case .go(let at) = grant else { return (grant, 0) }
            try await db.execute(
                "UPDATE call_budgets SET next_slot_us = ?, limit_per_second = ?, per_second = ? WHERE name = ?",
                [state.nextSlotMicros, budget.limit, budget.perSecond, budget.name])
            let second = at / 1_000_000
            let calls =
                try await db.row(
                    """
                    INSERT INTO call_budget_seconds (name, second, calls) VALUES (?, ?, 1)
                    ON CONFLICT (name, second) DO UPDATE SET calls = call_budget_seconds.calls + 1
                    RETURNING calls
                    """, [budget.name, second])?.get("calls", as: Int.self) ?? 1
            if calls == 1 {
                try await db.execute(
                    "DELETE FROM call_budget_seconds WHERE name = ? AND second < ?", [budget.name, second - Self.kept])
            }
            return (grant, calls)
        }
    }

    public func pause(_ budget: CallBudget, until: Int64) async throws {
        try await database.transaction { db in
            var state = try await Self.state(of: budget, in: db)
            budget.pause(&state, until: until)
            try await db.execute(
                "UPDATE call_budgets SET paused_until_us = ? WHERE name = ?", [state.pausedUntilMicros, budget.name])
        }
    }

    /// The budget's state, its row created on first use and locked until the transaction ends.
    static func state(of budget: CallBudget, in db: any SQLSession) async throws -> CallBudget.State {
        try await db.execute(
            """
            INSERT INTO call_budgets (name, limit_per_second, per_second) VALUES (?, ?, ?)
            ON CONFLICT (name) DO NOTHING
            """, [budget.name, budget.limit, budget.perSecond])
        let lock = db.dialect == .postgres ? " FOR UPDATE" : ""
        guard
            let row = try await db.row(
                "SELECT next_slot_us, paused_until_us FROM call_budgets WHERE name = ?\(lock)", [budget.name])
        else { throw SQLError.retry("call budget \(budget.name) vanished") }
        return CallBudget.State(
            nextSlotMicros: try row.get("next_slot_us"), pausedUntilMicros: try row.get("paused_until_us"))
    }

    /// What the console shows of one budget.
    public struct Usage: Hashable, Sendable {
        public var name: String
        /// Apple's limit, and the share of it spent, in calls a second.
        public var limitPerSecond: Double
        public var perSecond: Double
        /// Calls booked in the window, and in its busiest second.
        public var calls: Int
        public var busiestSecond: Int
        /// How far ahead turns are booked, and until when a `429` paused it (0: not).
        public var bookedAheadSeconds: Double
        public var pausedUntilMicros: Int64
    }

    /// Every budget used in the last `window` seconds before `now` (microseconds).
    public func usage(now: Int64, window: Int64 = 60) async throws -> [Usage] {
        try await database.snapshot { db in
            let since = now / 1_000_000 - window
            return try await db.rows(
                """
                SELECT b.name, b.limit_per_second, b.per_second, b.next_slot_us, b.paused_until_us,
                    CAST(SUM(s.calls) AS BIGINT) AS calls, MAX(s.calls) AS busiest
                FROM call_budgets b JOIN call_budget_seconds s ON s.name = b.name AND s.second >= ?
                GROUP BY b.name, b.limit_per_second, b.per_second, b.next_slot_us, b.paused_until_us
                ORDER BY b.name
                """, [since]
            ).map { row in
                let nextSlot: Int64 = try row.get("next_slot_us")
                let paused: Int64 = try row.get("paused_until_us")
                return Usage(
                    name: try row.get("name"), limitPerSecond: try row.get("limit_per_second"),
                    perSecond: try row.get("per_second"), calls: try row.get("calls"),
                    busiestSecond: try row.get("busiest"),
                    bookedAheadSeconds: max(0, Double(nextSlot - now) / 1_000_000),
                    pausedUntilMicros: paused > now ? paused : 0)
            }
        }
    }
}
