import Database
import Foundation
import HTTPClient
import PipelineTesting
import Repositories
import StubStore
import Testing

@testable import EndToEndSupport

/// `GET /v1/exports/revenue` from a real `iap intake` with two apps, on both databases: each
/// token reads its own app's revenue and nothing of the other's, in its own account ids,
/// streamed page by page, resumable after any entry; bad parameters are 400 naming them.
@Suite struct AppsRevenueExportTests {
    func get(_ pipeline: ProcessPipeline, _ path: String, token: String?) async throws -> HTTPClient.HTTPResponse {
        try await pipeline.client.execute(
            HTTPClient.HTTPRequest(
                url: "http://127.0.0.1:\(pipeline.intakePort)\(path)",
                headers: token.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? [], timeout: .seconds(60)))
    }

    @Test(arguments: TestBackend.allCases) func eachTokenExportsItsOwnAppsRevenueAndResumes(_ backend: TestBackend)
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let apps = try AppsOperatorCommandsTests.writeApps(in: directory)
        try await AppsOperatorCommandsTests.withDatabase(backend) { given, environment in
            try await ProcessPipeline.run(
                stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID),
                environment: environment.merging(["IAP_APPS": apps]) { $1 }
            ) { pipeline in
                // Given player-1 credited in both apps (each app's ledger), and 90 days of both
                // apps' revenue: puzzle (the default app) and racer
                let database = try given ?? pipeline.database()
                try await AppsOperatorCommandsTests.givenPlayerOneCreditedInBothApps(pipeline, database)
                try await RevenueHistory(transactions: 3_000, days: 90, apps: ["", "racer"]).write(into: database)
                let span = "since=2000-01-01&until=2100-01-01"
                let revenue = RevenueRepository(database)
                let far = (Date(timeIntervalSince1970: 946_684_800), Date(timeIntervalSince1970: 4_102_444_800))
                let racerTotals = try await revenue.totals(since: far.0, until: far.1, app: "racer")
                let puzzleTotals = try await revenue.totals(since: far.0, until: far.1, app: "")

                // When each app's job exports the whole span as CSV
                for (token, app, totals) in [
                    (ProcessPipeline.token, "puzzle", puzzleTotals),
                    (AppsEndToEndTests.racerToken, "racer", racerTotals),
                ] {
                    let answer = try await get(pipeline, "/v1/exports/revenue?\(span)", token: token)
                    #expect(answer.status == 200 && answer.header("Content-Type") == "text/csv; charset=utf-8")
                    let lines = answer.bodyString.split(separator: "\n").map {
                        $0.split(separator: ",", omittingEmptySubsequences: false)
                    }
                    #expect(lines.first?.first == "id" && lines.first?.count == RevenueExport.header.count)
                    let rows = lines.dropFirst()
                    // Then every entry is the app's, its accounts in the app's own ids, and the
                    // gross per currency is the ledger's
                    #expect(!rows.isEmpty && rows.allSatisfy { $0[2] == app && !$0[4].contains("/") })
                    var gross: [String: Int64] = [:]
                    for row in rows { gross[String(row[9]), default: 0] += Int64(row[11])! }
                    #expect(gross == Dictionary(uniqueKeysWithValues: totals.map { ($0.currency, $0.gross) }), "\(app)")

                    // And a job cut off after any entry resumes there, without the header, as NDJSON too
                    let middle = rows[rows.startIndex + rows.count / 2][0]
                    let rest = try await get(pipeline, "/v1/exports/revenue?\(span)&after=\(middle)", token: token)
                    let restLines = rest.bodyString.split(separator: "\n")
                    #expect(
                        restLines.count == rows.count - rows.count / 2 - 1 && restLines.first?.hasPrefix("id,") == false
                    )
                    let json = try await get(
                        pipeline, "/v1/exports/revenue?\(span)&after=\(middle)&format=ndjson", token: token)
                    #expect(json.header("Content-Type") == "application/x-ndjson")
                    let objects = json.bodyString.split(separator: "\n").compactMap {
                        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                    }
                    #expect(objects.count == restLines.count && objects.allSatisfy { $0["app"] as? String == app })
                }

                // The coin ledger the same way: each app's own credit, its account in its own ids
                for (token, app, amount) in [
                    (ProcessPipeline.token, "puzzle", "100"), (AppsEndToEndTests.racerToken, "racer", "500"),
                ] {
                    let answer = try await get(pipeline, "/v1/exports/ledger?\(span)", token: token)
                    let lines = answer.bodyString.split(separator: "\n").map {
                        $0.split(separator: ",", omittingEmptySubsequences: false)
                    }
                    #expect(answer.status == 200 && lines.count == 2, "\(app): \(answer.bodyString)")
                    #expect(
                        lines.last.map { [$0[2], $0[3], $0[4], $0[6]] } == [
                            Substring(app), "player-1", "purchase", Substring(amount),
                        ])
                }

                // Bad parameters: 400 naming the field; no token: 401
                for (query, field) in [
                    ("until=2100-01-01", "since"), ("since=yesterday&until=2100-01-01", "since"),
                    ("since=2100-01-01&until=2000-01-01", "since"), ("\(span)&format=xml", "format"),
                    ("\(span)&after=9223372036854775808", "after"), ("\(span)&after=lots", "after"),
                ] {
                    let answer = try await get(pipeline, "/v1/exports/revenue?\(query)", token: ProcessPipeline.token)
                    let body = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
                    let error = body?["error"] as? [String: Any]
                    #expect(
                        answer.status == 400 && error?["field"] as? String == field, "\(query): \(answer.bodyString)")
                }
                #expect(try await get(pipeline, "/v1/exports/revenue?\(span)", token: nil).status == 401)
                #expect(try await get(pipeline, "/v1/exports/ledger?\(span)", token: nil).status == 401)
                // The last cursor there can be: nothing after it (schemathesis once found it overflowed)
                let last = try await get(
                    pipeline, "/v1/exports/revenue?\(span)&after=\(Int64.max)", token: ProcessPipeline.token)
                #expect(last.status == 200 && last.bodyString.isEmpty)
            }
        }
    }
}
