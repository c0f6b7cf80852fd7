import Database
import Foundation
import PipelineCore
import PipelineTesting
import Settlement
import Synchronization
import Testing

@testable import Console
@testable import EndToEndSupport

/// The revenue page with `IAP_REVENUE_RATES`: every currency of the window in the base, each
/// month (or day) at its own rate, a currency some period of which has no rate left out of the
/// total and said so; and the setting read and checked when the configuration is.
@Suite struct ConsoleRevenueRatesTests {
    /// 2026-11-15 12:00 UTC: the 12 months run from 2025-12-01, the 30 days from 2026-10-17.
    static let now = Date(timeIntervalSince1970: 1_794_744_000)

    static let ratesJSON = #"""
        {"base": "USD", "rates": [
          {"date": "2026-10-01", "currency": "EUR", "rate": "1.10"},
          {"date": "2026-11-01", "currency": "EUR", "rate": "1.0832"},
          {"date": "2026-11-01", "currency": "JPY", "rate": "0.0067"},
          {"date": "2026-11-01", "currency": "KWD", "rate": "3.2561"},
          {"date": "2026-07-01", "currency": "GBP", "rate": "1.27"}
        ]}
        """#

    /// One purchase each: (day, currency, gross, proceeds), in minor units.
    static let payments: [(String, String, Int64, Int64)] = [
        ("2026-11-02", "USD", 499, 349),
        ("2026-10-05", "EUR", 1_000, 700),
        ("2026-11-03", "EUR", 2_000, 1_400),
        ("2026-11-04", "JPY", 800, 560),
        ("2026-11-05", "KWD", 1_500, 1_050),
        // June has no GBP rate (the first is July's): GBP is left out, though August has one.
        ("2026-06-10", "GBP", 449, 314),
        ("2026-08-10", "GBP", 449, 314),
    ]

    static func write(into database: any SQLDatabase) async throws {
        let formatter = ISO8601DateFormatter()
        let rows = try payments.enumerated().map { index, payment in
            let (day, currency, gross, proceeds) = payment
            let at = try #require(formatter.date(from: day + "T12:00:00Z"))
            let id = "rates-\(index)"
            let entry = RevenueEntry(
                app: "", store: "apple", accountID: "player-\(index)", transactionID: id, originalTransactionID: id,
                productID: "coins", kind: .purchase, currency: currency, gross: gross, proceeds: proceeds,
                commissionBasisPoints: 3000, receiptID: id)
            return (entry, at)
        }
        try await database.transaction { db in
            try await db.insert(
                into: "revenue_entries", columns: RevenueEntry.storedColumns,
                rows: rows.map { $0.values(at: db.stored($1)) })
            try await RevenueDay.rebuild(db)
        }
    }

    /// The page's converted table: each row's cells' text, by its first.
    static func convertedRows(_ html: String) throws -> [String: [String]] {
        let start = try #require(html.range(of: "<table id=\"revenue-converted\">"))
        let table = html[start.upperBound...]
        let end = try #require(table.range(of: "</table>"))
        var rows: [String: [String]] = [:]
        for row in table[..<end.lowerBound].components(separatedBy: "<tr").dropFirst(2) {
            let cells = row.components(separatedBy: "<td").dropFirst().map { cell in
                String(cell.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" })
            }
            rows[cells[0]] = Array(cells.dropFirst())
        }
        return rows
    }

    func page(_ query: String, rates: ExchangeRates?) async throws -> String {
        let box = PageBox()
        try await LiveConsole.run({ $0.revenueRates = rates }, now: { Self.now }) { console in
            try await Self.write(into: console.database)
            let cookie = try #require(
                LiveConsole.cookie(try await console.logIn(name: "bob", secret: LiveConsole.readerSecret)))
            let page = try #require(try await console.send("GET", "/console/revenue?\(query)", cookie: cookie))
            #expect(page.status == 200)
            box.set(page.body)
        }
        return box.get()
    }

    @Test func aYearIsSummedInTheBaseEachMonthAtItsOwnRate() async throws {
        let html = try await page("window=12m", rates: try ExchangeRates(json: Data(Self.ratesJSON.utf8)))
        #expect(html.contains("<h2>All currencies in USD</h2>"))
        let rows = try Self.convertedRows(html)
        #expect(rows["USD"] == ["4.99 USD", "1", "base", "4.99 USD", "3.49 USD"])
        // October's 10.00 EUR at 1.10 (11.00 USD) and November's 20.00 at 1.0832 (21.664: 21.66);
        // proceeds 7.70 and 15.1648: 15.16
        #expect(rows["EUR"] == ["30.00 EUR", "1.0832", "2026-11-01, for 2026-11", "32.66 USD", "22.86 USD"])
        // 800 JPY × 0.0067 = 5.36; 560 × 0.0067 = 3.752: 3.75
        #expect(rows["JPY"] == ["800 JPY", "0.0067", "2026-11-01, for 2026-11", "5.36 USD", "3.75 USD"])
        // 1.500 KWD × 3.2561 = 4.88415: 4.88; 1.050 × 3.2561 = 3.418905: 3.42
        #expect(rows["KWD"] == ["1.500 KWD", "3.2561", "2026-11-01, for 2026-11", "4.88 USD", "3.42 USD"])
        #expect(rows["GBP"] == ["8.98 GBP", "no rate", "none on or before 2026-06-01", "–", "–"])
        #expect(rows["Total, without GBP (no rate)"] == ["", "", "", "47.89 USD", "33.52 USD"])
        #expect(rows.count == 6)
    }

    @Test func thirtyDaysConvertEachDayAndAWindowWithEveryRateHasAWholeTotal() async throws {
        let html = try await page("window=30d", rates: try ExchangeRates(json: Data(Self.ratesJSON.utf8)))
        let rows = try Self.convertedRows(html)
        #expect(rows["EUR"] == ["20.00 EUR", "1.0832", "2026-11-01, for 2026-11-03", "21.66 USD", "15.16 USD"])
        #expect(rows["GBP"] == nil)
        #expect(rows["Total"] == ["", "", "", "36.89 USD", "25.82 USD"])
    }

    @Test func withoutRatesThePageStaysPerCurrency() async throws {
        let html = try await page("window=12m", rates: nil)
        #expect(html.contains("id=\"revenue-totals\""))
        #expect(!html.contains("revenue-converted") && !html.contains("All currencies in"))
    }

    @Test func theSettingIsReadAndABadFileStopsTheConfigurationWithItsProblem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let good = directory.file("rates.json")
        try Data(Self.ratesJSON.utf8).write(to: URL(fileURLWithPath: good))
        let bad = directory.file("bad.json")
        try Data(#"{"base": "USD", "rates": [{"date": "2026-11-01", "currency": "EUR", "rate": 1.08}]}"#.utf8)
            .write(to: URL(fileURLWithPath: bad))
        let operators = "bob:\(LiveConsole.readerSecret)"
        func configuration(_ path: String?) throws(SettingError) -> ConsoleConfiguration {
            var values = ["IAP_CONSOLE_OPERATORS": operators]
            values["IAP_REVENUE_RATES"] = path
            return try ConsoleConfiguration(environment: EnvironmentReader(values))
        }
        #expect(try configuration(nil).revenueRates == nil)
        #expect(try configuration(good).revenueRates?.base == "USD")
        do {
            _ = try configuration(bad)
            Issue.record("a rate written as a JSON number was accepted")
        } catch {
            #expect(error.description == "IAP_REVENUE_RATES: \(bad): rates[0].rate: must be a string (\"1.0832\")")
        }
        do {
            _ = try configuration(directory.file("missing.json"))
            Issue.record("a missing file was accepted")
        } catch {
            #expect(error.description.hasSuffix("missing.json: cannot be read (no such file, or not readable)"))
        }
    }
}

/// The page a console run read, handed out of its `@Sendable` body.
private final class PageBox: Sendable {
    private let body = Mutex("")
    func set(_ text: String) { body.withLock { $0 = text } }
    func get() -> String { body.withLock { $0 } }
}
