import Database
import Foundation
import GooglePlay
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Console
@testable import EndToEndSupport

/// The overview's charts: server-side SVG, a window of 24 hours or 30 days.
extension ConsoleTests {
    @Test func aChartStacksItsSeriesAndEscapesTheirNames() {
        let hours = (0..<24).map { Date(timeIntervalSince1970: 1_750_000_000 + Double($0) * 3600) }
        var credited = Array(repeating: 0, count: 24)
        credited[23] = 7
        var dead = Array(repeating: 0, count: 24)
        dead[23] = 3
        let svg = SVGChart(
            id: "c", title: "Receipts", buckets: hours,
            series: [.init(name: "credited", values: credited), .init(name: "<dead & gone>", values: dead)],
            labels: .hours, colours: SVGChart.outcomes
        ).svg
        #expect(svg.components(separatedBy: "<rect").count - 1 == 2)
        #expect(svg.contains("credited: 7</title>") && svg.contains("&lt;dead &amp; gone&gt;: 3</title>"))
        #expect(!svg.contains("<dead"))
        #expect(svg.contains(">10</text>"))  // the axis tops at a round 10 above 7 + 3
        #expect(svg.contains("credited <b>7</b>"))
        #expect([0, 1, 7, 10, 11, 180, 999].map(SVGChart.niceCeiling) == [0, 1, 10, 10, 20, 200, 1000])
        let empty = SVGChart(id: "e", title: "None", buckets: hours, series: [], labels: .hours).svg
        #expect(empty.contains("nothing in this window") && !empty.contains("<rect"))
    }

    @Test(arguments: TestBackend.allCases) func theOverviewChartsTheLastDayOrMonth(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, console: Self.console) { pipeline in
            let data = pipeline.receipt(transactions: [(id: "chart-t1", product: "com.example.coins100")])
            let (_, receiptID) = try await pipeline.submit(account: "chart-player", receiptData: data)
            _ = try await pipeline.finalStatus(try #require(receiptID))
            let cookie = try await logIn(pipeline)
            for window in ["24h", "30d"] {
                let page = try await get("/console?window=\(window)", cookie: cookie, pipeline)
                #expect(page.status == 200)
                for id in ["chart-receipts", "chart-credited", "chart-refunds", "chart-dead"] {
                    #expect(page.bodyString.contains("id=\"\(id)\""), "\(window): \(id)")
                }
                #expect(page.bodyString.contains("coins <b>100</b>"), "\(window)")
            }
            let bad = try await get("/console?window=forever", cookie: cookie, pipeline)
            #expect(bad.status == 400 && bad.bodyString.contains("24h or 30d"))
        }
    }
}

extension ConsoleTests {
    @Test func theOverviewWarnsOfPlayPurchasesGoogleWasNeverTold() async throws {
        try await PipelineHarness.run(console: Self.console) { pipeline in
            // Given a credited Play purchase whose consumption Google keeps failing, then forgets
            pipeline.stub.googlePlay.configuration.withLock { $0.acknowledgeFailFirst = 1_000 }
            pipeline.stub.googlePlay.register(
                token: "play-stuck",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: "com.example.coins100")], purchaseState: "PURCHASED",
                    orderId: "GPA.9999-0000-0000-00001"))
            let (_, answer) = try await pipeline.submitGooglePlay(
                account: "android-stuck", token: "play-stuck", product: "com.example.coins100")
            _ = try await pipeline.finalStatus(try #require(answer["receipt_id"] as? String))
            pipeline.stub.googlePlay.forget(token: "play-stuck")
            pipeline.stub.googlePlay.configuration.withLock { $0.acknowledgeFailFirst = 0 }

            // Then its store confirmation is given up on (404), and the overview says so
            #expect(await pipeline.googleConfirmation("GPA.9999-0000-0000-00001", becomes: .failed))
            let page = try await get("/console", cookie: try await logIn(pipeline), pipeline)
            #expect(page.bodyString.contains("id=\"store-confirmations\""))
            #expect(page.bodyString.contains("1 purchase is still unconfirmed with the store (google: 1)"))
        }
    }
}
