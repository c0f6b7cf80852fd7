import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// The webhook log in the console: every outbox row, one whole, sent again with its id.
extension ConsoleTests {
    @Test(arguments: TestBackend.allCases) func theWebhookLogShowsEachRowAndSendsOneAgain(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, console: Self.console) { pipeline in
            let data = pipeline.receipt(transactions: [(id: "hook-t1", product: "com.example.coins100")])
            let (_, receiptID) = try await pipeline.submit(account: "hook-player", receiptData: data)
            _ = try await pipeline.finalStatus(try #require(receiptID))
            _ = try await pipeline.receiver.waitFor(count: 1, timeout: .seconds(30)) { $0.wasAccepted }
            // (The receiver has it; the notifier records the delivery a moment later.)
            let log = WebhookLogRepository(pipeline.database)
            #expect(
                await eventually {
                    (try? await log.list(.init(accountID: "hook-player")).first?.status) == .delivered
                })
            let hook = try #require(try await log.list(.init(accountID: "hook-player")).first)
            let cookie = try await logIn(pipeline)

            let listed = try await get("/console/webhooks?status=delivered&since=1h", cookie: cookie, pipeline)
            #expect(listed.status == 200 && listed.bodyString.contains(hook.id))
            let detail = try await get("/console/webhooks/\(hook.id)", cookie: cookie, pipeline)
            #expect(detail.status == 200 && detail.bodyString.contains("hook-player"))
            #expect(detail.bodyString.contains("receipt.credited"))

            // Sent again with the same id: the receiver gets it twice
            let replay = try await post(
                "/console/webhooks/\(hook.id)/replay", form: ["csrf": try csrf(in: detail.bodyString)],
                cookie: cookie, pipeline)
            #expect(replay.status == 200 && replay.bodyString.contains("1 webhook will be sent again"))
            let twice = try await pipeline.receiver.waitFor(count: 2, timeout: .seconds(30)) { $0.wasAccepted }
            #expect(twice.count == 2)

            // Bad input: named, nothing changed
            #expect(try await get("/console/webhooks?status=lost", cookie: cookie, pipeline).status == 400)
            #expect(try await get("/console/webhooks?since=yesterday", cookie: cookie, pipeline).status == 400)
            #expect(try await get("/console/webhooks/evt_none", cookie: cookie, pipeline).status == 404)
            let none = try await post(
                "/console/webhooks/evt_none/replay", form: ["csrf": try csrf(in: detail.bodyString)], cookie: cookie,
                pipeline)
            #expect(none.status == 404)
        }
    }
}
