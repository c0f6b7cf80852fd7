import Database
import Foundation
import PipelineCore

/// The revenue ledger's days (`revenue_days`) gathered into a window's periods (days or
/// months): what the console's revenue page charts and tabulates, and its CSV holds. Sums
/// stay per currency; only ``converted(_:)``, with the rates of `IAP_REVENUE_RATES`, sums
/// them in one, beside them.
struct RevenueReport {
    enum Window: String, CaseIterable {
        case days30 = "30d"
        case days90 = "90d"
        case months12 = "12m"

        var label: String {
            switch self {
            case .days30: "last 30 days"
            case .days90: "last 90 days"
            case .months12: "last 12 months"
            }
        }

        var monthly: Bool { self == .months12 }
    }

    /// One period's sums for one app, store and currency.
    struct Line {
        var period: Int
        var day: RevenueDay
    }

    let window: Window
    /// Each period's first day, oldest first.
    let periods: [Date]
    /// Sums by period, app, store and currency, in that order.
    let lines: [Line]

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The window's periods ending with the one `now` is in, oldest first.
    static func periods(_ window: Window, now: Date) -> [Date] {
        let today = calendar.startOfDay(for: now)
        switch window {
        case .days30, .days90:
            let count = window == .days30 ? 30 : 90
            return (0..<count).reversed().map { today.addingTimeInterval(-86_400 * Double($0)) }
        case .months12:
            let month = calendar.date(from: calendar.dateComponents([.year, .month], from: today))!
            return (0..<12).reversed().map { calendar.date(byAdding: .month, value: -$0, to: month)! }
        }
    }

    /// The days the window reads: from its first period's first day through `now`'s.
    static func span(_ window: Window, now: Date) -> (from: String, through: String) {
        (RevenueDay.day(of: periods(window, now: now)[0]), RevenueDay.day(of: now))
    }

    init(_ window: Window, days: [RevenueDay], now: Date) {
        self.window = window
        let periods = Self.periods(window, now: now)
        self.periods = periods
        // A day's period by its text: `yyyy-MM-dd`, or its `yyyy-MM` for months.
        let keyLength = window.monthly ? 7 : 10
        let index = Dictionary(
            uniqueKeysWithValues: periods.enumerated().map { (String(RevenueDay.day(of: $1).prefix(keyLength)), $0) })
        var sums: [RevenueDay.Key: Line] = [:]
        for day in days {
            guard let period = index[String(day.key.day.prefix(keyLength))] else { continue }
            var key = day.key
            key.day = RevenueDay.day(of: periods[period])
            var line = sums[key] ?? Line(period: period, day: RevenueDay(key: key))
            line.day.add(day)
            sums[key] = line
        }
        lines = sums.values.sorted { $0.day.key < $1.day.key }
    }

    /// The currencies the window holds, the most paid in (by payments) first.
    var currencies: [String] {
        var payments: [String: Int] = [:]
        for line in lines { payments[line.day.key.currency, default: 0] += line.day.payments }
        return payments.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map(\.key)
    }

    /// One currency's lines summed by `name` (a store, an app): a series per name, a value per
    /// period, of `figure`.
    func series(
        _ currency: String, by name: (RevenueDay.Key) -> String, _ figure: (RevenueDay) -> Int64
    ) -> [(name: String, values: [Int])] {
        var values: [String: [Int]] = [:]
        for line in lines where line.day.key.currency == currency {
            values[name(line.day.key), default: Array(repeating: 0, count: periods.count)][line.period] += Int(
                figure(line.day))
        }
        return values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The window's sums per currency.
    var totals: [RevenueDay] {
        var sums: [String: RevenueDay] = [:]
        for line in lines {
            let currency = line.day.key.currency
            var total =
                sums[currency] ?? RevenueDay(key: RevenueDay.Key(day: "", app: "", store: "", currency: currency))
            total.add(line.day)
            sums[currency] = total
        }
        return currencies.compactMap { sums[$0] }
    }

    /// A period's name: `2026-11-29`, or `2026-11` for a month.
    func periodName(_ index: Int) -> String {
        let day = RevenueDay.day(of: periods[index])
        return window.monthly ? String(day.prefix(7)) : day
    }

    /// What take-backs gave back of what was paid, as a percentage with one decimal.
    static func refundRate(_ day: RevenueDay) -> String {
        guard day.paid > 0 else { return "–" }
        let tenths = (-day.givenBack * 1000 + day.paid / 2) / day.paid
        return "\(tenths / 10).\(abs(tenths % 10)) %"
    }

    /// An amount of minor units in its currency: `1,234.56 USD`, `800 JPY`.
    static func money(_ minor: Int64, _ currency: String) -> String {
        let exponent = CurrencyUnits.exponent(of: currency)
        var scale: Int64 = 1
        for _ in 0..<exponent { scale *= 10 }
        let magnitude = minor.magnitude
        var whole = String(magnitude / UInt64(scale))
        var grouped = ""
        while whole.count > 3 {
            grouped = "," + whole.suffix(3) + grouped
            whole.removeLast(3)
        }
        grouped = whole + grouped
        let fraction = String(magnitude % UInt64(scale))
        let decimals = exponent == 0 ? "" : "." + String(repeating: "0", count: exponent - fraction.count) + fraction
        return (minor < 0 ? "-" : "") + grouped + decimals + " " + currency
    }

    /// An axis's top value in whole units of `currency`, short: `2k`.
    static func axis(_ minor: Int, _ currency: String) -> String {
        var scale = 1
        for _ in 0..<CurrencyUnits.exponent(of: currency) { scale *= 10 }
        return SVGChart.short(minor / scale)
    }
}
