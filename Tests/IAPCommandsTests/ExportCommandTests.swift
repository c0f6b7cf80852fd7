import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// `iap export revenue`: the revenue ledger streamed page by page as CSV or NDJSON, read back
/// by Python's `csv` module to the repository's totals, and resumed from its cursor.
@Suite struct ExportCommandTests {
    static let catalog = Catalog(products: [
        Product(productID: "coins", kind: .consumable, grant: Grant(currency: "coins", amount: 100))
    ])

    /// 1,250 credited purchases over three currencies, as Apple prices them (milli-units).
    func history(at path: String) async throws {
        let database = try SQLiteDatabase(path: path)
        let receipts = (0..<1_250).map { NewReceipt.fixture(accountID: "player-\($0 % 7)") }
        _ = try await IntakeRepository(database).accept(receipts, now: Date())
        let prices: [(String, Int64)] = [("USD", 990), ("JPY", 160_000), ("EUR", 1_090)]
        let verdicts = receipts.enumerated().map { index, receipt in
            let (currency, milli) = prices[index % 3]
            return Verdict(
                outcome: .valid, receiptID: receipt.id, accountID: receipt.accountID, attempts: 1,
                transactions: [
                    VerifiedTransaction(
                        transactionID: "t\(index)", originalTransactionID: "t\(index)", productID: "coins",
                        priceMicros: milli * 1000, currency: currency, country: "USA")
                ], decidedAt: Date())
        }
        for chunk in stride(from: 0, to: verdicts.count, by: 250) {
            _ = try await SettlementRepository(database).apply(
                Array(verdicts[chunk..<min(chunk + 250, verdicts.count)]), catalog: Self.catalog, now: Date())
        }
    }

    /// Python's `csv` module's sums of `gross` by currency, and its row count, of `file`.
    static func pythonTotals(_ file: String) async throws -> (totals: [String: Int64], rows: Int) {
        let script = """
            import csv, json, sys
            totals, rows = {}, 0
            with open(sys.argv[1], newline='') as f:
                for row in csv.DictReader(f):
                    totals[row['currency']] = totals.get(row['currency'], 0) + int(row['gross'])
                    rows += 1
            print(json.dumps({'totals': totals, 'rows': rows}))
            """
        let outcome = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, file], environment: [:])
        let answer = try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any], "\(outcome.output)")
        let totals = (answer["totals"] as? [String: Int] ?? [:]).mapValues(Int64.init)
        return (totals, answer["rows"] as? Int ?? -1)
    }

    /// Every export's whole span.
    static let span = ["--since", "2020-01-01", "--until", "2100-01-01"]

    /// Runs `body` over a fresh history (``history(at:)``) with the environment naming it.
    func withHistory(_ body: (TemporaryDirectory, String, [String: String]) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("iap.sqlite")
        try await history(at: path)
        try await body(directory, path, ["IAP_DB_PATH": path])
    }

    @Test func theExportIsReadBackByPythonsCSVToTheLedgersTotals_andResumesFromItsCursor() async throws {
        try await withHistory { directory, path, environment in
            let span = Self.span

            // The whole ledger as CSV: Python's csv module sums it to the repository's totals
            let all = try await IAPProcess.run(["export", "revenue"] + span, environment: environment)
            #expect(all.status == 0, "\(all.output.suffix(500))")
            let csvText = all.output.split(separator: "\n").filter { !$0.hasPrefix("export:") }.joined(separator: "\n")
            let file = directory.file("revenue.csv")
            try (csvText + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let (totals, rows) = try await Self.pythonTotals(file)
            let stored = try await RevenueRepository(try SQLiteDatabase(path: path)).totals(
                since: Date(timeIntervalSince1970: 0), until: Date().addingTimeInterval(3600))
            #expect(rows == 1_250)
            #expect(totals == Dictionary(uniqueKeysWithValues: stored.map { ($0.currency, $0.gross) }))
            #expect(totals == ["EUR": 416 * 109, "JPY": 417 * 160, "USD": 417 * 99])
            #expect(all.output.contains("export: 1250 entries, cursor "), "\(all.output.suffix(200))")

            // Resumed after the 1,000th entry: the last 250, without the header
            let thousandth = try #require(csvText.split(separator: "\n")[1000].split(separator: ",").first)
            let rest = try await IAPProcess.run(
                ["export", "revenue", "--after", String(thousandth)] + span, environment: environment)
            let restLines = rest.output.split(separator: "\n").filter { !$0.hasPrefix("export:") }
            #expect(restLines.count == 250 && !restLines[0].hasPrefix("id,"), "\(restLines.prefix(2))")

            // As NDJSON, one object a line, amounts as numbers
            let ndjson = try await IAPProcess.run(
                ["export", "revenue", "--format", "ndjson"] + span, environment: environment)
            let first = try #require(ndjson.output.split(separator: "\n").first)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
            #expect(
                object["gross"] as? Int == 99 && object["currency"] as? String == "USD"
                    && object["estimated"] as? Bool == false)

            // A span that ends before it starts is refused, naming the options
            let backwards = try await IAPProcess.run(
                ["export", "revenue", "--since", "2026-02-01", "--until", "2026-01-01"], environment: environment)
            #expect(backwards.status != 0 && backwards.output.contains("--since must be before --until"))
        }
    }

    @Test func theCoinLedgerIsExportedAsWrittenOnePageAtATime() async throws {
        try await withHistory { _, _, environment in
            let span = Self.span

            // Every purchase's 100 coins, in ledger order, with its transaction and receipt
            let csv = try await IAPProcess.run(["export", "ledger"] + span, environment: environment)
            #expect(csv.status == 0, "\(csv.output.suffix(500))")
            let lines = csv.output.split(separator: "\n").filter { !$0.hasPrefix("export:") }
            #expect(
                lines.first
                    == "id,created_at,app,account_id,kind,currency,amount,transaction_id,receipt_id,notification_id,step"
            )
            let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            #expect(
                rows.count == 1_250 && rows.allSatisfy { $0[2] == "default" && $0[4] == "purchase" && $0[6] == "100" })
            #expect(rows.map { Int($0[0])! } == rows.map { Int($0[0])! }.sorted())
            #expect(csv.output.contains("export: 1250 entries, cursor "))

            // As NDJSON, resumed after the 1,200th: the last 50, amounts as numbers
            let after = String(rows[1199][0])
            let json = try await IAPProcess.run(
                ["export", "ledger", "--format", "ndjson", "--after", after] + span, environment: environment)
            let objects = json.output.split(separator: "\n").filter { !$0.hasPrefix("export:") }.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(
                objects.count == 50
                    && objects.allSatisfy { $0["amount"] as? Int == 100 && $0["currency"] as? String == "coins" })

            // An app this deployment does not have is refused by name
            let unknown = try await IAPProcess.run(
                ["export", "ledger", "--app", "nope"] + span, environment: environment)
            #expect(unknown.status != 0 && unknown.output.contains("nope"), "\(unknown.output.suffix(300))")
        }
    }
}
