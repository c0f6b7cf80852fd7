import Database
import Foundation

// MARK: - Query plans: how the revenue reports are read, as the database plans them

extension RevenueRepository {
    /// One report statement with its plan: SQLite's `EXPLAIN QUERY PLAN`, PostgreSQL's
    /// `EXPLAIN (ANALYZE, BUFFERS)` (run, with its timings).
    public struct Plan: Sendable {
        public var name: String
        public var lines: [String]
    }

    /// The plans of what the console's revenue page (12 months by month, 90 days by day, one
    /// app's 30 days) and an export's page (a day, every app and one app) ask, for `now`.
    public func plans(now: Date, app: String = "") async throws -> [Plan] {
        let today = RevenueDay.day(of: now)
        let yearAgo = RevenueDay.day(of: now.addingTimeInterval(-365 * 86_400))
        let quarter = RevenueDay.day(of: now.addingTimeInterval(-90 * 86_400))
        let (since, until) = (now.addingTimeInterval(-180 * 86_400), now.addingTimeInterval(-179 * 86_400))
        return try await database.snapshot { db in
            let (low, high) = try await Self.ids(since: since, until: until, db)
            let statements: [(String, String, SQLArguments)] = [
                ("console: 12 months by month", Self.daysQuery(app: false, byMonth: true), [yearAgo, today]),
                ("console: 90 days by day", Self.daysQuery(app: false, byMonth: false), [quarter, today]),
                ("console: one app's 90 days", Self.daysQuery(app: true, byMonth: false), [quarter, today, app]),
                ("console: subscriptions a year ago", Self.subscriptionsBeforeQuery(app: false), [yearAgo]),
                ("export: a page of a day", Self.pageQuery(app: false), [low, high, since, until, 1000]),
                ("export: a page of one app's day", Self.pageQuery(app: true), [low, high, since, until, app, 1000]),
            ]
            var plans: [Plan] = []
            for (name, sql, arguments) in statements {
                let explained = try await db.rows(
                    (db.dialect == .sqlite ? "EXPLAIN QUERY PLAN " : "EXPLAIN (ANALYZE, BUFFERS) ") + sql, arguments)
                let lines = try explained.map { row in
                    try db.dialect == .sqlite
                        ? row.get("detail", as: String.self) : row.get("QUERY PLAN", as: String.self)
                }
                plans.append(Plan(name: name, lines: lines))
            }
            return plans
        }
    }
}
