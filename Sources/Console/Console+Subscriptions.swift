import Database
import Foundation
import PipelineCore
import Repositories

// MARK: - Subscriptions: the revenue page's section on them

extension OperatorConsole {
    /// Active subscriptions now with their monthly recurring revenue; the window's starts,
    /// trials and renewals by period (every currency: they are counts), the subscriptions that
    /// ended in it, and its trials converted.
    func subscriptions(_ report: RevenueReport, naming: AccountNaming) async throws -> String {
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
                ("monthly recurring revenue", .num),
            ],
            rows: active.map { line in
                (
                    "",
                    [
                        .text(naming.apps.appID(ofKey: line.app)), .text(line.store), .text(line.productID),
                        .number(line.subscribers), .number(line.inTrial),
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
        let endedTotal = ended.values.reduce(0, +)
        let (trials, converted) = (counts(\.trials).reduce(0, +), counts(\.conversions).reduce(0, +))
        let rate = trials == 0 ? "–" : "\((converted * 1000 / trials + 5) / 10) %"
        out += HTML.table(
            id: "subscriptions-window",
            columns: [("in the \(report.window.label)", .text), ("", .num)],
            rows: [
                ("", [.text("subscriptions ended"), .number(endedTotal)]),
                ("", [.text("free trials started"), .number(trials)]),
                ("", [.text("free trials converted (a first paid period after one)"), .number(converted)]),
                ("", [.text("trial conversion (converted ÷ started)"), HTML.Cell(html: rate, kind: .num)]),
            ])
        return out
    }
}
