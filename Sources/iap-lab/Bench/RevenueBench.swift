import ArgumentParser
import Database
import Foundation
import IAPCommands
import PipelineCore
import PipelineTesting
import Repositories

extension Lab {
    /// `iap-lab bench revenue`: a year of generated revenue history in the pipeline's database
    /// (`IAP_DB_PATH` or `IAP_DATABASE_URL`), then how long the revenue reports' reads take
    /// and how the database plans them. scripts/bench-revenue.sh runs it on both databases and
    /// times the console's pages and an export around it.
    struct RevenueBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revenue",
            abstract: "Generate revenue history, then time the revenue reports' reads and print their plans.")

        @Option(help: "Payments to generate (refunds, revocations and reversals come on top).")
        var transactions = 1_000_000
        @Option(help: "Days of history, ending now.") var days = 365
        @Option(help: "Apps, by key (\"\" is the default app), comma-separated.") var apps = ",racer"
        @Flag(help: "Use the history already in the database.") var reuse = false

        func run() async throws {
            let settings = try PipelineSettings()
            let database = try await settings.openDatabase(longWork: true)
            let repository = RevenueRepository(database)
            let now = Date()
            if !reuse {
                let started = ContinuousClock.now
                let written = try await RevenueHistory(
                    transactions: transactions, days: days,
                    apps: apps.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                ).write(into: database, now: now)
                let seconds = (ContinuousClock.now - started).seconds
                print("history: \(written) entries over \(days) days in \(String(format: "%.1f", seconds)) s")
            }
            // Each read five times: the median, and the first (a cold cache's).
            func time(_ name: String, _ read: () async throws -> Int) async throws {
                var times: [Double] = []
                var rows = 0
                for _ in 0..<5 {
                    let started = ContinuousClock.now
                    rows = try await read()
                    times.append((ContinuousClock.now - started).seconds * 1000)
                }
                let median = times.sorted()[2]
                print(String(format: "read: %@: %d rows, first %.1f ms, median %.1f ms", name, rows, times[0], median))
            }
            let today = RevenueDay.day(of: now)
            try await time("12 months by month") {
                try await repository.days(
                    from: RevenueDay.day(of: now.addingTimeInterval(-365 * 86_400)), through: today, byMonth: true
                ).count
            }
            try await time("90 days by day") {
                try await repository.days(
                    from: RevenueDay.day(of: now.addingTimeInterval(-90 * 86_400)), through: today
                )
                .count
            }
            try await time("subscriptions at the start of 12 months") {
                try await repository.subscriptionsBefore(RevenueDay.day(of: now.addingTimeInterval(-365 * 86_400)))
                    .count
            }
            try await time("an export's page of a day") {
                let since = now.addingTimeInterval(-180 * 86_400)
                return try await repository.page(after: 0, since: since, until: since.addingTimeInterval(86_400)).count
            }
            try await time("an export's page of one app's day") {
                let since = now.addingTimeInterval(-180 * 86_400)
                return try await repository.page(
                    after: 0, since: since, until: since.addingTimeInterval(86_400), app: "racer"
                ).count
            }
            for plan in try await repository.plans(now: now, app: "racer") {
                print("plan: \(plan.name)")
                for line in plan.lines { print("  \(line)") }
            }
            let totals = try await repository.totals(
                since: now.addingTimeInterval(-400 * 86_400), until: now.addingTimeInterval(60))
            for total in totals {
                print(
                    "totals: \(total.currency) gross \(total.gross) proceeds \(total.proceeds) payments \(total.payments)"
                )
            }
            // What the console's 12 months show (from the first day of the month 11 months back),
            // for a browser to check the page against.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let month = calendar.date(from: calendar.dateComponents([.year, .month], from: now))!
            let first = calendar.date(byAdding: .month, value: -11, to: month)!
            var window: [String: (gross: Int64, payments: Int)] = [:]
            for day in try await repository.days(from: RevenueDay.day(of: first), through: today, byMonth: true) {
                window[day.key.currency, default: (0, 0)].gross += day.gross
                window[day.key.currency, default: (0, 0)].payments += day.payments
            }
            for (currency, sums) in window.sorted(by: { $0.key < $1.key }) {
                print("window: 12m \(currency) gross \(sums.gross) payments \(sums.payments)")
            }
        }
    }
}
