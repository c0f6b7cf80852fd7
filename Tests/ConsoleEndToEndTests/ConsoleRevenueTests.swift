import Console
import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Testing

@testable import EndToEndSupport

/// The console's revenue page over a year of generated history, on both databases: read in
/// a real headless Chromium (charts drawn, the totals the ledger holds, the CSV summed by
/// Python's csv module to the same), and over plain HTTP for its refusals and its download.
extension ConsoleTests {
    /// The first day of the month eleven months before `now`'s: where the 12 months start.
    static func twelveMonthsStart(_ now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let month = calendar.date(from: calendar.dateComponents([.year, .month], from: now))!
        return RevenueDay.day(of: calendar.date(byAdding: .month, value: -11, to: month)!)
    }

    @Test(arguments: TestBackend.allCases) func aYearOfRevenueIsChartedAndItsCSVSumsToTheLedgerInChromium(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, console: Self.desk) { pipeline in
            // Given a year of history: 20,000 payments in five currencies and six stores
            let now = Date()
            let written = try await RevenueHistory(transactions: 20_000).write(into: pipeline.database, now: now)
            #expect(written > 20_000)
            let days = try await RevenueRepository(pipeline.database).days(
                from: Self.twelveMonthsStart(now), through: RevenueDay.day(of: now))
            let euros = days.filter { $0.key.currency == "EUR" }
            let (gross, payments) = (euros.map(\.gross).reduce(0, +), euros.map(\.payments).reduce(0, +))
            #expect(payments > 3_000 && Set(days.map(\.key.store)).count == 6)

            // When a read-only operator reads it in Chromium, in euros
            let artifacts = try BrowserArtifacts.directory(backend)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("ConsoleBrowser/revenue_charts.py").path
            let (status, output) = try await run(
                "/usr/bin/python3",
                [
                    script, "--url", "http://127.0.0.1:\(pipeline.intakePort)", "--reader", "bob:\(Self.bobSecret)",
                    "--currency", "EUR", "--gross", String(gross), "--payments", String(payments),
                    "--artifacts", artifacts,
                ])
            print("console revenue browser test (\(backend)):\n\(output)")

            // Then the page and its CSV say what the ledger holds
            #expect(status == 0, "the browser script failed: \(output)")
            #expect(output.contains("revenue page: ok"))
            #expect(FileManager.default.fileExists(atPath: artifacts + "/console-revenue-12m.png"))
        }
    }

    @Test func theRevenuePageRefusesBadFiltersAndItsCSVIsAFile() async throws {
        try await PipelineHarness.run(.sqlite, console: Self.desk) { pipeline in
            try await RevenueHistory(transactions: 500, days: 20).write(into: pipeline.database)
            #expect(try await get("/console/revenue", pipeline).status == 401)
            #expect(try await get("/console/revenue.csv", pipeline).status == 401)
            let bob = try await logIn(pipeline, as: "bob", secret: Self.bobSecret)
            for (query, message) in [
                ("window=7y", "window: is 30d, 90d or 12m, not "),
                ("currency=dollars", "currency: is an ISO 4217 code (USD), not "),
                ("app=nope", "is not an app of IAP_APPS"),
            ] {
                let page = try await get("/console/revenue?\(query)", cookie: bob, pipeline)
                #expect(page.status == 400, "\(query)")
                #expect(page.bodyString.contains(message), "\(query): \(page.bodyString.prefix(2000))")
            }
            let page = try await get("/console/revenue?currency=JPY", cookie: bob, pipeline)
            #expect(page.status == 200 && page.bodyString.contains("id=\"chart-revenue-stores\""))
            #expect(page.bodyString.contains("JPY by day") && page.bodyString.contains(" JPY</b>"))
            let csv = try await get("/console/revenue.csv?window=90d", cookie: bob, pipeline)
            #expect(csv.status == 200 && csv.header("Content-Type") == "text/csv; charset=utf-8")
            #expect(csv.header("Content-Disposition") == "attachment; filename=\"revenue-90d.csv\"")
            let lines = csv.bodyString.split(separator: "\r\n")
            #expect(lines.first?.hasPrefix("period,app,store,currency,minor_unit_digits,payments") == true)
            #expect(Set(lines.dropFirst().map { $0.split(separator: ",")[3] }) == ["USD", "EUR", "JPY", "GBP", "KWD"])
            #expect(lines.dropFirst().allSatisfy { $0.split(separator: ",")[1] == "default" })
        }
    }
}
