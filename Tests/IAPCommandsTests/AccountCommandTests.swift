import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// `iap account`: an account's story from the command line, grants and revokes on the
/// record, and bad input refused by name with nothing changed.
@Suite struct AccountCommandTests {
    @Test(arguments: TestBackend.allCases) func showAdjustAndEntitle_andBadInputNamed(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a player credited 100 coins
            let data = pipeline.receipt(transactions: [(id: "cli-t1", product: "com.example.coins100")])
            let (_, receiptID) = try await pipeline.submit(account: "cli-player", receiptData: data)
            _ = try await pipeline.finalStatus(try #require(receiptID))
            let env = pipeline.databaseEnvironment.merging(["USER": "carol"]) { $1 }
            func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
                let outcome = try await IAPProcess.run(arguments, environment: env)
                return (outcome.status, outcome.output)
            }
            func json(_ output: String) throws -> [String: Any] {
                try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
            }

            // Found by its transaction id
            let shown = try await run(["account", "show", "cli-t1", "--json"])
            #expect(shown.status == 0, "\(shown.output)")
            let story = try json(shown.output)
            #expect((story["account"] as? [String: Any])?["account_id"] as? String == "cli-player")
            #expect((story["timeline"] as? [[String: Any]])?.contains { $0["kind"] as? String == "credit" } == true)

            // A grant, run twice with one key: counted once
            let grant = [
                "account", "adjust", "cli-player", "--currency", "coins", "--amount", "100", "--reason", "goodwill",
                "--idempotency-key", "cli-k1", "--json",
            ]
            let first = try json(try await run(grant).output)
            #expect(first["balance"] as? Int == 200 && first["operator"] as? String == "carol")
            let second = try json(try await run(grant).output)
            #expect(
                second["replayed"] as? Bool == true
                    && second["adjustment_id"] as? String == first["adjustment_id"] as? String)

            // A revoke past the balance follows the catalog's policy (allow: below zero, flagged)
            let revoke = try await run([
                "account", "adjust", "cli-player", "--currency", "coins", "--amount", "-300", "--reason", "chargeback",
                "--by", "dave",
            ])
            #expect(
                revoke.status == 0 && revoke.output.contains("took back 300 coins; balance -100 by dave"),
                "\(revoke.output)")
            let vip = try await run([
                "account", "entitle", "cli-player", "--entitlement", "vip", "--until", "2030-01-01", "--reason",
                "outage",
            ])
            #expect(vip.status == 0 && vip.output.contains("granted vip until 2030-01-01"), "\(vip.output)")
            let text = try await run(["account", "show", "cli-player"])
            #expect(
                text.output.contains("coins -100") && text.output.contains("dave took back 300 coins"), "\(text.output)"
            )
            #expect(text.output.contains("entitlement.granted"))
            #expect(text.output.contains("flag: negative_balance -100 coins (adjustment:"), "\(text.output)")

            // Bad input: named, nothing changed
            let adjust = ["account", "adjust", "cli-player", "--currency", "coins"]
            for (arguments, message) in [
                (adjust + ["--amount", "0", "--reason", "x"], "an adjustment of 0 changes nothing"),
                (adjust + ["--amount", "ten", "--reason", "x"], "the amount 'ten' is not a whole number"),
                (adjust + ["--amount", "5"], "an adjustment needs a reason"),
                (
                    ["account", "adjust", "cli-player", "--currency", "diamonds", "--amount", "5", "--reason", "x"],
                    "no product grants the currency 'diamonds'"
                ),
                (
                    ["account", "adjust", "nobody", "--currency", "coins", "--amount", "5", "--reason", "x"],
                    "no account 'nobody'"
                ),
                (
                    ["account", "entitle", "cli-player", "--entitlement", "vip", "--until", "soon", "--reason", "x"],
                    "neither YYYY-MM-DD"
                ),
                (["account", "show", "nobody"], "no account found for 'nobody'"),
            ] {
                let refused = try await run(arguments)
                #expect(refused.status != 0 && refused.output.contains(message), "\(arguments): \(refused.output)")
            }
            #expect(try await pipeline.balance("cli-player") == -100)
            #expect(try await AdjustmentRepository(pipeline.database).adjustments(of: "cli-player").count == 3)
            let audit = try await run(["audit"])
            #expect(audit.status == 0, "\(audit.output)")
        }
    }
}
