import Database
import DeadLetters
import Foundation
import Repositories
import SettlementWriter

// MARK: - The overview's charts

extension OperatorConsole {
    /// The last 24 hours by hour, or the last 30 days by day: receipts by outcome, credited
    /// value per currency, refunds, dead letters by reason.
    func charts(_ query: FormValues) async throws -> String {
        let requested = query["window"] ?? ActivityRepository.Window.day.rawValue
        guard let window = ActivityRepository.Window(rawValue: requested) else {
            throw FilterError(field: "window", problem: "is 24h or 30d, not '\(requested.prefix(16))'")
        }
        let activity = try await ActivityRepository(database).activity(window, now: now())
        let hourly = window == .day
        let per = hourly ? "per hour" : "per day"
        func chart(_ id: String, _ title: String, _ series: [ActivityRepository.Series]) -> String {
            SVGChart(
                id: id, title: title, buckets: activity.buckets,
                series: series.map { SVGChart.Series(name: $0.name, values: $0.values) },
                labels: hourly ? .hours : .days,
                colours: SVGChart.outcomes
            ).svg
        }
        var out = "<p class=\"windows\">"
        for (option, label) in [(ActivityRepository.Window.day, "last 24 hours"), (.month, "last 30 days")] {
            out +=
                option == window
                ? "<b>\(label)</b> " : "<a href=\"/console?window=\(option.rawValue)\">\(label)</a> "
        }
        out += "</p><div class=\"charts\">"
        out += chart("chart-receipts", "Receipts \(per), by outcome", activity.receipts)
        out += chart("chart-credited", "Credited value \(per), by currency", activity.credited)
        out += chart("chart-refunds", "Refunds and revokes \(per)", activity.refunds)
        out += chart("chart-dead", "Dead letters \(per), by reason", activity.deadLetters)
        return out + "</div>"
    }
}
