import Database
import PipelineCore

// MARK: - The window's currencies in one, when IAP_REVENUE_RATES gives rates

extension RevenueReport {
    /// One currency of the window summed in the base of the rates: each period (day or month)
    /// at the latest rate dated on or before its first day, so that a year converts each month
    /// at its own rate.
    struct Converted {
        enum Problem: Equatable {
            /// No rate on or before this period's first day (the earliest such period with revenue).
            case noRate(period: Int)
            /// A conversion or sum does not fit in Int64.
            case tooLarge
        }

        var currency: String
        /// Gross kept in the currency itself, the window's.
        var gross: Int64
        /// The rate of the currency's last period with revenue, and that period.
        var lastRate: ExchangeRates.Rate?
        var lastPeriod: Int?
        /// Gross kept and proceeds in the base; zero when `problem` is set.
        var grossInBase: Int64 = 0
        var proceedsInBase: Int64 = 0
        /// Why the currency is left out of the total; nil when it is in.
        var problem: Problem?
    }

    /// The window's currencies, in the order of ``totals``, each summed in `rates.base`.
    func converted(_ rates: ExchangeRates) -> [Converted] {
        // Each currency's sums per period first, so that a period is converted (and rounded) once.
        var sums: [String: [Int: (gross: Int64, proceeds: Int64)]] = [:]
        for line in lines {
            var sum = sums[line.day.key.currency, default: [:]][line.period] ?? (0, 0)
            sum.gross += line.day.gross
            sum.proceeds += line.day.proceeds
            sums[line.day.key.currency, default: [:]][line.period] = sum
        }
        return totals.map { total in
            let currency = total.key.currency
            var row = Converted(currency: currency, gross: total.gross)
            for (period, sum) in (sums[currency] ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard let rate = rates.rate(of: currency, on: RevenueDay.day(of: periods[period])) else {
                    row.problem = .noRate(period: period)
                    break
                }
                guard let gross = rates.toBase(sum.gross, at: rate),
                    let proceeds = rates.toBase(sum.proceeds, at: rate),
                    case (let grossSum, false) = row.grossInBase.addingReportingOverflow(gross),
                    case (let proceedsSum, false) = row.proceedsInBase.addingReportingOverflow(proceeds)
                else {
                    row.problem = .tooLarge
                    break
                }
                (row.grossInBase, row.proceedsInBase) = (grossSum, proceedsSum)
                (row.lastRate, row.lastPeriod) = (rate, period)
            }
            if row.problem != nil { (row.grossInBase, row.proceedsInBase) = (0, 0) }
            return row
        }
    }
}

extension OperatorConsole {
    /// The table of every currency in the rates' base, its total row after the currencies;
    /// a currency some period of which has no rate says so and is left out of the total.
    func convertedRevenue(_ report: RevenueReport, _ rates: ExchangeRates) -> String {
        let base = rates.base
        let per = report.window.monthly ? "month" : "day"
        let rows = report.converted(rates)
        func money(_ minor: Int64, _ currency: String) -> HTML.Cell {
            HTML.Cell(html: HTML.escape(RevenueReport.money(minor, currency)), kind: .num)
        }
        var cells: [(attributes: String, cells: [HTML.Cell])] = rows.map { row in
            let attributes = "data-currency=\"\(HTML.escape(row.currency))\""
            let gross = money(row.gross, row.currency)
            switch row.problem {
            case .noRate(let period):
                let first = RevenueDay.day(of: report.periods[period])
                return (
                    attributes,
                    [
                        .text(row.currency), gross, .text("no rate"), .text("none on or before \(first)"), .text("–"),
                        .text("–"),
                    ]
                )
            case .tooLarge:
                return (
                    attributes,
                    [.text(row.currency), gross, .text("too large"), .text("–"), .text("–"), .text("–")]
                )
            case nil:
                let rate = row.lastRate.map { HTML.Cell(html: HTML.escape($0.text), kind: .num) } ?? .text("–")
                let date: String
                if row.currency == base {
                    date = "base"
                } else if let rate = row.lastRate, let period = row.lastPeriod {
                    date = "\(rate.date), for \(report.periodName(period))"
                } else {
                    date = "–"
                }
                return (
                    attributes,
                    [
                        .text(row.currency), gross, rate, .text(date), money(row.grossInBase, base),
                        money(row.proceedsInBase, base),
                    ]
                )
            }
        }
        var gross: Int64? = 0
        var proceeds: Int64? = 0
        for row in rows where row.problem == nil {
            gross = gross.flatMap { sum in
                let (total, overflow) = sum.addingReportingOverflow(row.grossInBase)
                return overflow ? nil : total
            }
            proceeds = proceeds.flatMap { sum in
                let (total, overflow) = sum.addingReportingOverflow(row.proceedsInBase)
                return overflow ? nil : total
            }
        }
        let left = rows.compactMap { row in
            row.problem.map { "\(row.currency) (\($0 == .tooLarge ? "too large" : "no rate"))" }
        }
        let label = left.isEmpty ? "Total" : "Total, without \(left.joined(separator: ", "))"
        cells.append(
            (
                "class=\"total\" id=\"revenue-converted-total\"",
                [
                    .text(label), .text(""), .text(""), .text(""), gross.map { money($0, base) } ?? .text("too large"),
                    proceeds.map { money($0, base) } ?? .text("too large"),
                ]
            ))
        var out = "<h2>All currencies in \(HTML.escape(base))</h2>"
        out += HTML.table(
            id: "revenue-converted",
            columns: [
                ("currency", .text), ("gross", .num), ("rate", .num), ("rate's date", .text),
                ("gross in \(base)", .num), ("proceeds in \(base)", .num),
            ],
            rows: cells)
        out +=
            "<p class=\"note\">Each \(per) is converted at the latest rate of <code>IAP_REVENUE_RATES</code> dated on "
            + "or before its first day, rounded half away from zero to the minor unit; the rate shown is that of the "
            + "currency's last \(per) in the window. A currency without a rate for some \(per) is left out of the "
            + "total. The tables per currency are the ledger's figures; these are derived from them.</p>"
        return out
    }
}
