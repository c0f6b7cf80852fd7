import Foundation

/// A stacked bar chart as inline SVG, drawn on the server: no script, no framework. Each
/// bar is a bucket (an hour or a day); each colour a series, named in the legend with its
/// total. Hovering a segment shows its value (an SVG `<title>`).
struct SVGChart {
    struct Series {
        var name: String
        var values: [Int]
    }

    var id: String
    var title: String
    var buckets: [Date]
    var series: [Series]
    /// What a bucket is, and so how its label reads: "14:00", "11-25", "2026-11".
    var labels: Labels
    /// How a value reads (a count; money in its currency's units).
    var valueText: (Int) -> String = { String($0) }
    /// How the axis's top value reads, in a few characters.
    var axisText: (Int) -> String = { SVGChart.short($0) }

    enum Labels {
        case hours, days, months

        var format: String {
            switch self {
            case .hours: "HH:00"
            case .days: "MM-dd"
            case .months: "yyyy-MM"
            }
        }
    }
    /// Fixed colours for names that mean something (outcomes); the palette for the rest.
    var colours: [String: String] = [:]

    static let palette = ["#1565c0", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#558b2f", "#4e342e", "#37474f"]
    static let outcomes = [
        "credited": "#2e7d32", "in progress": "#90a4ae", "rejected": "#ef6c00", "dead": "#c62828",
        "refund": "#c62828", "revoke": "#6a1b9a",
    ]

    private let width = 560.0
    private let height = 180.0
    private let left = 44.0
    private let bottom = 22.0

    var svg: String {
        let totals = buckets.indices.map { index in series.reduce(0) { $0 + max(0, $1.values[safe: index] ?? 0) } }
        let top = Self.niceCeiling(totals.max() ?? 0)
        let plotHeight = height - bottom - 8
        let slot = (width - left) / Double(max(buckets.count, 1))
        var out = """
            <figure class="chart" id="\(HTML.escape(id))"><figcaption>\(HTML.escape(title))</figcaption>\
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" \
            aria-label="\(HTML.escape(title))">
            """
        // The axis: zero and the top value, with a faint line at the top.
        out += "<line x1=\"\(left)\" y1=\"8\" x2=\"\(width)\" y2=\"8\" stroke=\"#eceff1\"/>"
        out +=
            "<line x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width)\" y2=\"\(height - bottom)\" stroke=\"#b0bec5\"/>"
        out +=
            "<text x=\"\(left - 4)\" y=\"12\" text-anchor=\"end\" font-size=\"10\">\(HTML.escape(axisText(top)))</text>"
        out += "<text x=\"\(left - 4)\" y=\"\(height - bottom)\" text-anchor=\"end\" font-size=\"10\">0</text>"
        for (index, bucket) in buckets.enumerated() {
            let x = left + Double(index) * slot + slot * 0.1
            var y = height - bottom
            for (number, line) in series.enumerated() {
                let value = max(0, line.values[safe: index] ?? 0)
                guard value > 0, top > 0 else { continue }
                let barHeight = plotHeight * Double(value) / Double(top)
                y -= barHeight
                out += "<rect x=\"\(Self.fixed(x))\" y=\"\(Self.fixed(y))\" width=\"\(Self.fixed(slot * 0.8))\" "
                out += "height=\"\(Self.fixed(barHeight))\" fill=\"\(colour(line.name, number))\">"
                out += "<title>\(HTML.escape("\(label(bucket)) · \(line.name): \(valueText(value))"))</title></rect>"
            }
            // Every sixth label (every other month's), so that they never overlap.
            if index % (labels == .months ? 2 : 6) == 0 || index == buckets.count - 1 {
                // The last label ends at the edge rather than run past it.
                let (labelX, anchor) =
                    index == buckets.count - 1 ? (x + slot * 0.8, "end") : (x + slot * 0.4, "middle")
                out += "<text x=\"\(Self.fixed(labelX))\" y=\"\(height - 6)\" text-anchor=\"\(anchor)\" "
                out += "font-size=\"10\">\(HTML.escape(label(bucket)))</text>"
            }
        }
        out += "</svg><ul class=\"legend\">"
        if series.isEmpty { out += "<li>nothing in this window</li>" }
        for (number, line) in series.enumerated() {
            out += "<li><span style=\"background:\(colour(line.name, number))\"></span>"
            out += "\(HTML.escape(line.name)) <b>\(HTML.escape(valueText(line.values.reduce(0, +))))</b></li>"
        }
        return out + "</ul></figure>"
    }

    private func colour(_ name: String, _ number: Int) -> String {
        colours[name] ?? Self.palette[number % Self.palette.count]
    }

    private func label(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = labels.format
        return formatter.string(from: date)
    }

    /// 1, 2 or 5 times a power of ten, at least `value`: an axis people read at a glance.
    static func niceCeiling(_ value: Int) -> Int {
        guard value > 0 else { return 0 }
        var power = 1
        while power * 10 <= value { power *= 10 }
        for step in [1, 2, 5, 10] where step * power >= value { return step * power }
        return 10 * power
    }

    static func short(_ value: Int) -> String {
        value >= 1_000_000 ? "\(value / 1_000_000)M" : value >= 10_000 ? "\(value / 1000)k" : String(value)
    }

    private static func fixed(_ value: Double) -> String { String(format: "%.1f", value) }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
