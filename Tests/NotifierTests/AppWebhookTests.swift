import Apps
import Database
import Foundation
import Notifier
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

/// Apps as tenants at the notifier (issue 30): each app's events go to its own webhook,
/// signed with its own secret, and name the account as that app's backend sent it.
@Suite struct AppWebhookTests {
    static let racerSecret = WebhookSecret.generate()

    @Test func eachAppsEventsGoToItsWebhookSignedWithItsSecretAndBare() async throws {
        try await NotifierHarness.with { harness async throws in
            // The default app's p1, racer's p1, and an account of an app with no webhook.
            let accounts = ["p1", "racer/p1", "quiet/p1"]
            let rows = try await Fixture.notifications(3, in: harness.database) { accounts[$0 - 1] }
            let byAccount = Dictionary(uniqueKeysWithValues: rows.map { ($0.accountID, $0) })
            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) { puzzle in
                try await withWebhookReceiver(secret: Self.racerSecret.encoded, now: harness.clock.function) { racer in
                    var configuration = Notifier.Configuration(
                        webhookURL: puzzle.url, secret: Fixture.secret, requestTimeout: .seconds(5),
                        schedule: Fixture.schedule())
                    configuration.apps = ["racer": Notifier.AppWebhook(url: racer.url, secret: Self.racerSecret)]
                    let notifier = Notifier(
                        configuration: configuration, database: harness.database, client: harness.client,
                        logger: Fixture.logger(harness.logs), now: harness.clock.function)
                    _ = try await notifier.runOnce()

                    let puzzleRow = try #require(byAccount["p1"])
                    let racerRow = try #require(byAccount["racer/p1"])
                    #expect(puzzle.received.compactMap(\.id) == [puzzleRow.id])
                    #expect(racer.received.compactMap(\.id) == [racerRow.id])
                    for (receiver, row) in [(puzzle, puzzleRow), (racer, racerRow)] {
                        let delivery = try #require(receiver.deliveries(for: row.id).first)
                        // Each receiver checks the signature with its own app's secret.
                        #expect(delivery.signature == .valid)
                        let body = try JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any]
                        #expect(body?["account_id"] as? String == "p1")
                        #expect(try await harness.row(row.id)?.status == "delivered")
                    }
                    // Never to another app's endpoint: the quiet app's event waits in the outbox.
                    let quiet = try #require(byAccount["quiet/p1"])
                    let waiting = try await harness.row(quiet.id)
                    #expect(waiting?.status == "pending" && waiting?.attempts == 0)
                }
            }
        }
    }

    @Test func theAppsFileGivesEachAppItsWebhookAndNamesTheOneAtFault() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("apps.yaml")
        func settings(racerSecret: String) throws -> NotifierSettings {
            try """
            apps:
              - id: puzzle
                api_tokens: [puzzle-backend-token-0001]
                webhook: { url: "https://puzzle.example/iap", secret: "\(Fixture.secret.encoded)" }
              - id: racer
                api_tokens: [racer-backend-token-00001]
                webhook: { url: "https://racer.example/iap", secret: "\(racerSecret)" }
              - id: quiet
                api_tokens: [quiet-backend-token-00001]
            """.write(toFile: file, atomically: true, encoding: .utf8)
            return try NotifierSettings(
                environment: EnvironmentReader([
                    "IAP_WEBHOOK_URL": "https://old.example/iap",
                    "IAP_WEBHOOK_SECRET": WebhookSecret.generate().encoded,
                ]),
                apps: AppsFile.load(path: file, schema: AppsFile.Schema(stores: [])))
        }
        let read = try settings(racerSecret: Self.racerSecret.encoded)
        // The first app's webhook is the default app's, in place of IAP_WEBHOOK_URL.
        #expect(read.webhookURL == "https://puzzle.example/iap" && read.secret.encoded == Fixture.secret.encoded)
        #expect(read.apps.keys.sorted() == ["racer"])
        #expect(read.apps["racer"]?.url == "https://racer.example/iap")
        #expect(read.configuration().apps["racer"]?.secret.encoded == Self.racerSecret.encoded)

        let bad = "whsec_not-base64-at-all!!"
        #expect {
            try settings(racerSecret: bad)
        } throws: { error in
            "\(error)".contains("app racer: webhook.secret") && !"\(error)".contains(bad)
        }
    }
}
