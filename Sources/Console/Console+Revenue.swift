import Database
import DeadLetters
import Foundation
import PipelineCore
import Repositories

// MARK: - Revenue: the revenue ledger by day or month, per store, app and currency

extension OperatorConsole {
    /// The window, app and currency a revenue page or its CSV was asked for.
    private struct RevenueQuery {
        var window: RevenueReport.Window
        var naming: AccountNaming
        var currency: String?
        /// The query string that asks for the same again (the CSV's link, the windows' links).
        var text: String
    }

    private func revenueQuery(_ query: FormValues) throws -> RevenueQuery {
        let requested = query["window"] ?? RevenueReport.Window.days30.rawValue
        guard let window = RevenueReport.Window(rawValue: requested) else {
            throw FilterError(field: "window", problem: "is 30d, 90d or 12m, not '\(requested.prefix(16))'")
        }
        let currency = query.text("currency")
        if let currency, !CurrencyUnits.isCode(currency) {
            throw FilterError(field: "currency", problem: "is an ISO 4217 code (USD), not '\(currency.prefix(16))'")
        }
        let naming = try naming(query)
        let text = [("app", naming.scope?.id), ("currency", currency)].compactMap { name, value in
            value.map { "&\(name)=\(HTML.query($0))" }
        }.joined()
        return RevenueQuery(window: window, naming: naming, currency: currency, text: text)
    }

    private func report(_ asked: RevenueQuery) async throws -> RevenueReport {
        let now = now()
        let span = RevenueReport.span(asked.window, now: now)
        let days = try await RevenueRepository(database).days(
            from: span.from, through: span.through, app: asked.naming.scope?.key, byMonth: asked.window.monthly)
        return RevenueReport(asked.window, days: days, now: now)
    }

    /// `GET /console/revenue`: totals per currency, then one currency's gross and refunds per
    /// store (and per app) by day or month, each chart with its numbers in a table under it.
    func revenue(_ session: ConsoleSession, _ query: FormValues) async throws -> ConsolePage {
        let asked = try revenueQuery(query)
        let report = try await report(asked)
        let currency = asked.currency ?? report.currencies.first
        var body = "<p class=\"windows\">"
        for option in RevenueReport.Window.allCases {
            body +=
                option == asked.window
                ? "<b>\(option.label)</b> "
                : "<a href=\"/console/revenue?window=\(option.rawValue)\(HTML.escape(asked.text))\">\(option.label)</a> "
        }
        body += "</p><form method=\"get\" action=\"/console/revenue\" class=\"filters\">"
        body += HTML.hidden("window", asked.window.rawValue) + appPicker(asked.naming)
        body += "<label>Currency <select name=\"currency\" id=\"currency\">"
        for option in report.currencies {
            body += "<option\(option == currency ? " selected" : "")>\(HTML.escape(option))</option>"
        }
        body += "</select></label> <button type=\"submit\">Show</button> "
        body += "<a id=\"revenue-csv\" href=\"/console/revenue.csv?window=\(asked.window.rawValue)"
        body += "\(HTML.escape(asked.text))\">Download CSV</a></form>"
        body += "<h2>By currency, \(asked.window.label)</h2>"
        body += HTML.table(
            id: "revenue-totals",
            columns: [
                ("currency", .text), ("payments", .num), ("paid", .num), ("refunds", .num), ("given back", .num),
                ("refund rate", .num), ("gross", .num), ("proceeds", .num), ("estimated", .num),
            ],
            rows: report.totals.map { total in
                let code = total.key.currency
                return (
                    "data-currency=\"\(HTML.escape(code))\"",
                    [
                        .text(code), .number(total.payments), money(total.paid, code), .number(total.takeBacks),
                        money(total.givenBack, code), HTML.Cell(html: RevenueReport.refundRate(total), kind: .num),
                        money(total.gross, code), money(total.proceeds, code), .number(total.estimated),
                    ]
                )
            })
        if let rates = configuration.revenueRates, !report.lines.isEmpty { body += convertedRevenue(report, rates) }
        if report.lines.isEmpty { body += "<p>No revenue in this window.</p>" }
        if let currency, !report.lines.isEmpty { body += charts(report, currency, naming: asked.naming) }
        body += try await subscriptions(report, currency: currency, naming: asked.naming)
        body +=
            "<p class=\"note\">Gross is what players paid less what refunds gave back, tax included where the store "
            + "includes it; proceeds are after the store's commission. Estimated entries were priced from the "
            + "catalog (the store reported no price). See docs/revenue.md.</p>"
        return ConsolePage(
            .ok,
            HTML.page(
                title: "Revenue", operatorName: session.operatorName, csrf: session.csrfToken(configuration),
                body: body))
    }

    private func money(_ minor: Int64, _ currency: String) -> HTML.Cell {
        HTML.Cell(html: HTML.escape(RevenueReport.money(minor, currency)), kind: .num)
    }

    /// One currency's charts, each with its table.
    private func charts(_ report: RevenueReport, _ currency: String, naming: AccountNaming) -> String {
        let per = report.window.monthly ? "month" : "day"
        func chart(_ id: String, _ title: String, _ series: [(name: String, values: [Int])]) -> String {
            SVGChart(
                id: id, title: title, buckets: report.periods,
                series: series.map { SVGChart.Series(name: $0.name, values: $0.values) },
                labels: report.window.monthly ? .months : .days,
                valueText: { RevenueReport.money(Int64($0), currency) },
                axisText: { RevenueReport.axis($0, currency) }
            ).svg
        }
        var out = "<h2>\(HTML.escape(currency)) by \(per)</h2><div class=\"charts\">"
        out += chart(
            "chart-revenue-stores", "Gross per \(per), by store (\(currency))",
            report.series(currency, by: \.store, \.gross))
        out += chart(
            "chart-revenue-refunds", "Given back by refunds per \(per), by store (\(currency))",
            report.series(currency, by: \.store) { -$0.givenBack })
        if naming.apps.hasApps && naming.scope == nil {
            out += chart(
                "chart-revenue-apps", "Gross per \(per), by app (\(currency))",
                report.series(currency, by: { naming.apps.appID(ofKey: $0.app) }, \.gross))
        }
        out += "</div>"
        out += HTML.table(
            id: "revenue-periods",
            columns: [
                (per, .text), ("app", .text), ("store", .text), ("payments", .num), ("paid", .num),
                ("given back", .num), ("refund rate", .num), ("gross", .num), ("proceeds", .num),
            ],
            rows: report.lines.filter { $0.day.key.currency == currency }.reversed().map { line in
                let day = line.day
                return (
                    "",
                    [
                        .text(report.periodName(line.period)), .text(naming.apps.appID(ofKey: day.key.app)),
                        .text(day.key.store), .number(day.payments), money(day.paid, currency),
                        money(day.givenBack, currency), HTML.Cell(html: RevenueReport.refundRate(day), kind: .num),
                        money(day.gross, currency), money(day.proceeds, currency),
                    ]
                )
            })
        return out
    }

    /// `GET /console/revenue.csv`: the page's window as CSV, every currency, one line per
    /// period, app, store and currency; amounts in minor units.
    func revenueCSV(_ session: ConsoleSession, _ query: FormValues) async throws -> ConsolePage {
        let asked = try revenueQuery(query)
        let report = try await report(asked)
        var csv =
            "period,app,store,currency,minor_unit_digits,payments,paid,take_backs,given_back,gross,proceeds,estimated\r\n"
        for line in report.lines where asked.currency == nil || line.day.key.currency == asked.currency {
            let day = line.day
            let fields: [String] = [
                report.periodName(line.period), asked.naming.apps.appID(ofKey: day.key.app), day.key.store,
                day.key.currency, String(CurrencyUnits.exponent(of: day.key.currency)), String(day.payments),
                String(day.paid), String(day.takeBacks), String(day.givenBack), String(day.gross),
                String(day.proceeds), String(day.estimated),
            ]
            csv += fields.map(CSVField.quoted).joined(separator: ",") + "\r\n"
        }
        return ConsolePage.download(csv, named: "revenue-\(asked.window.rawValue).csv")
    }
}
