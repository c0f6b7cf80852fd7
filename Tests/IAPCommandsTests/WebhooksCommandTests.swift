import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// `iap webhooks`: the log from the command line, and its refusals by name.
@Suite struct WebhooksCommandTests {
    @Test func listShowAndReplay_andBadInputNamed() async throws {
        try await PipelineHarness.run { pipeline in
            // Given a credited receipt, whose webhook the receiver took
            let (_, id) = try await pipeline.submit(
                account: "hooked",
                signedTransaction: pipeline.stub.storeKit.signTransaction(
                    .init(productID: "com.example.coins100")))
            _ = try await pipeline.finalStatus(try #require(id))
            _ = try await pipeline.receiver.waitFor(count: 1, timeout: .seconds(30), where: { $0.wasAccepted })
            let env = pipeline.databaseEnvironment

            let list = try await IAPProcess.run(
                ["webhooks", "list", "--account", "hooked", "--json"], environment: env)
            #expect(list.status == 0, "\(list.output)")
            let entries = try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]] ?? []
            #expect(entries.count == 1)
            #expect(entries.first?["type"] as? String == "receipt.credited")
            let hook = try #require(entries.first?["id"] as? String)

            let shown = try await IAPProcess.run(["webhooks", "show", hook], environment: env)
            #expect(shown.status == 0 && shown.output.contains("\"account_id\":\"hooked\""), "\(shown.output)")

            // When it is replayed, the receiver gets it again with the same id
            let replay = try await IAPProcess.run(["webhooks", "replay", hook], environment: env)
            #expect(replay.status == 0 && replay.output.contains("replaying 1 webhook"), "\(replay.output)")
            let again = try await pipeline.receiver.waitFor(count: 2, timeout: .seconds(30), where: { $0.wasAccepted })
            #expect(again.count == 2)

            for (arguments, message) in [
                (["webhooks", "show", "evt_none"], "no webhook with id evt_none"),
                (["webhooks", "list", "--status", "lost"], "lost"),
                (["webhooks", "list", "--since", "yesterday"], "neither an age"),
                (["webhooks", "replay"], "give webhook ids, or --failed"),
                (["webhooks", "replay", "--failed"], "--failed needs --since"),
                (["webhooks", "replay", "evt_none"], "no such webhook: evt_none"),
            ] {
                let run = try await IAPProcess.run(arguments, environment: env)
                #expect(run.status != 0 && run.output.contains(message), "\(arguments): \(run.output)")
            }
        }
    }
}
