import Database
import Foundation
import PipelineCore
import Repositories

// MARK: - Subscriptions: the revenue page's section on them

extension OperatorConsole {
    /// Active subscriptions now with their monthly recurring revenue; the window's starts,
    /// trials and renewals by period (every currency: they are counts), the subscriptions that
    /// ended in it, and its trials converted.
    func subscriptions(_ report: RevenueReport, currency: String?, naming: AccountNaming) async throws -> String {
        let now = now()
        let figures = SubscriptionFigures(database)
        let app = naming.scope?.key
        let active = try await figures.active(now: now, app: app)
        let since = report.periods[0]
        let ended = try await figures.ended(
            since: since, until: now.addingTimeInterval(1), now: now, app: naming.scope)
        var out = "<h2>Subscriptions</h2>"
        out += HTML.table(
            id: "subscriptions-active",
            columns: [
                ("app", .text), ("store", .text), ("product", .text), ("active now", .num), ("in a free trial", .num),
                ("in a grace period", .num), ("monthly recurring revenue", .num),
            ],
            rows: active.map { line in
                (
                    "",
                    [
                        .text(naming.apps.appID(ofKey: line.app)), .text(line.store), .text(line.productID),
                        .number(line.subscribers), .number(line.inTrial), .number(line.inGrace),
                        HTML.Cell(
                            html: HTML.escape(RevenueReport.money(line.monthlyRecurringRevenue, line.currency)),
                            kind: .num),
                    ]
                )
            })
        if active.isEmpty { out += "<p>No subscription is active now.</p>" }
        let per = report.window.monthly ? "month" : "day"
        func counts(_ figure: (RevenueDay) -> Int) -> [Int] {
            var values = Array(repeating: 0, count: report.periods.count)
            for line in report.lines { values[line.period] += figure(line.day) }
            return values
        }
        out += "<div class=\"charts\">"
        out +=
            SVGChart(
                id: "chart-subscriptions", title: "Subscriptions per \(per): started, free trials, renewed",
                buckets: report.periods,
                series: [
                    SVGChart.Series(name: "started", values: counts(\.starts)),
                    SVGChart.Series(name: "free trials", values: counts(\.trials)),
                    SVGChart.Series(name: "renewed", values: counts(\.renewals)),
                ].filter { $0.values.contains { $0 > 0 } },
                labels: report.window.monthly ? .months : .days
            ).svg
        out += "</div>"
        out += try await overTime(report, currency: currency, app: app)
        let endedTotal = ended.values.reduce(0, +)
        let retrying = try await figures.billingRetry(now: now, app: naming.scope).values.reduce(0, +)
        let (trials, converted) = (counts(\.trials).reduce(0, +), counts(\.conversions).reduce(0, +))
        let rate = trials == 0 ? "–" : "\((converted * 1000 / trials + 5) / 10) %"
        out += HTML.table(
            id: "subscriptions-window",
            columns: [("in the \(report.window.label)", .text), ("", .num)],
            rows: [
                ("", [.text("subscriptions ended"), .number(endedTotal)]),
                (
                    "",
                    [.text("in billing retry now (access ended, the store still trying to bill)"), .number(retrying)]
                ),
                ("", [.text("free trials started"), .number(trials)]),
                ("", [.text("free trials converted (a first paid period after one)"), .number(converted)]),
                ("", [.text("trial conversion (converted ÷ started)"), HTML.Cell(html: rate, kind: .num)]),
            ])
        return out
    }

    /// Active subscription periods (every currency: a count) and one currency's monthly
    /// recurring revenue at the end of each period, by store, from the rollup's movements
    /// (``RevenueDay/movements(of:on:)``) summed from the first day on.
    private func overTime(_ report: RevenueReport, currency: String?, app: String?) async throws -> String {
        let before = try await RevenueRepository(database).subscriptionsBefore(
            RevenueDay.day(of: report.periods[0]), app: app)
        var (active, recurring): ([String: [Int]], [String: [Int]]) = ([:], [:])
        let empty = Array(repeating: 0, count: report.periods.count)
        var (running, runningMRR): ([String: Int], [String: Int]) = ([:], [:])
        for line in before {
            running[line.key.store, default: 0] += line.subscribers
            if line.key.currency == currency { runningMRR[line.key.store, default: 0] += Int(line.recurring) }
        }
        var lines = report.lines[...]
        for period in report.periods.indices {
            while let line = lines.first, line.period == period {
                running[line.day.key.store, default: 0] += line.day.subscribers
                if line.day.key.currency == currency {
                    runningMRR[line.day.key.store, default: 0] += Int(line.day.recurring)
                }
                lines = lines.dropFirst()
            }
            for (store, count) in running { active[store, default: empty][period] = count }
            for (store, mrr) in runningMRR { recurring[store, default: empty][period] = mrr }
        }
        let end = report.window.monthly ? "month" : "day"
        let series = { (values: [String: [Int]]) in
            values.sorted { $0.key < $1.key }.filter { $0.value.contains { $0 != 0 } }
                .map { SVGChart.Series(name: $0.key, values: $0.value) }
        }
        let labels: SVGChart.Labels = report.window.monthly ? .months : .days
        var out = "<div class=\"charts\">"
        out +=
            SVGChart(
                id: "chart-subscribers", title: "Active subscriptions at the end of each \(end), by store",
                buckets: report.periods, series: series(active), labels: labels
            ).svg
        if let currency {
            out +=
                SVGChart(
                    id: "chart-mrr",
                    title: "Monthly recurring revenue at the end of each \(end), by store (\(currency))",
                    buckets: report.periods, series: series(recurring), labels: labels,
                    valueText: { RevenueReport.money(Int64($0), currency) },
                    axisText: { RevenueReport.axis($0, currency) }
                ).svg
        }
        out += "</div>"
        out += HTML.table(
            id: "subscriptions-over-time",
            columns: [(end, .text), ("active subscriptions", .num)]
                + (currency.map { [("monthly recurring revenue (\($0))", .num)] } ?? []),
            rows: report.periods.indices.reversed().map { period in
                let count = active.values.reduce(0) { $0 + $1[period] }
                let mrr = recurring.values.reduce(0) { $0 + $1[period] }
                return (
                    "",
                    [.text(report.periodName(period)), .number(count)]
                        + (currency.map {
                            [HTML.Cell(html: HTML.escape(RevenueReport.money(Int64(mrr), $0)), kind: .num)]
                        } ?? [])
                )
            })
        return out
    }
}
