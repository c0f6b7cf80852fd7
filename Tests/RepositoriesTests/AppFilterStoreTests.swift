import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// The stores' app filter (issue 30), on both backends: the default app owns the bare ids,
/// another app the ids that start with its own and `/`, matched whole (an `_` in an app id
/// is no wildcard), and a player is found in every app.
@Suite struct AppFilterStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let apps = AppDirectory(ids: ["puzzle", "a_b", "axb"])

    @Test(arguments: TestBackend.allCases) func eachAppSeesOnlyItsRowsAndAPlayerIsFoundInEveryApp(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given player-1 credited in three apps, and a dead letter of each
            let accounts = ["player-1", "a_b/player-1", "axb/player-1"]
            for (index, account) in accounts.enumerated() {
                try await database.acceptNew([Fixture.receipt("r\(index)", account: account)])
                _ = try await SettlementRepository(database).apply(
                    [
                        Fixture.valid(
                            "r\(index)", account: account, [Fixture.purchase("t\(index)", original: "o\(index)")])
                    ],
                    catalog: Fixture.catalog, now: t0)
            }
            _ = try await DeadLetterRepository(database).archive(
                accounts.enumerated().map { index, account in
                    DeadLetter(
                        id: "dl_\(index)", receiptID: nil, accountID: account, reason: "test", attempts: 1,
                        lastError: nil, sourceQueue: nil, body: Data("{}".utf8), headers: "{}", deadAt: t0,
                        createdAt: t0)
                }, catalog: Fixture.catalog, now: t0)

            // Then each app's filter keeps to its own rows
            for (scope, account) in zip(apps.scopes, accounts) {
                let hooks = try await WebhookLogRepository(database).list(.init(app: scope))
                #expect(Set(hooks.map(\.accountID)) == [account], "\(scope)")
                let letters = try await DeadLetterRepository(database).deadLetters(DeadLetterQuery(app: scope))
                #expect(letters.map(\.accountID) == [account], "\(scope)")
            }
            // Every app's, unfiltered; the single-app settings filter nothing
            #expect(try await WebhookLogRepository(database).list(.init()).count == 3)
            #expect(try await DeadLetterRepository(database).deadLetters(DeadLetterQuery(app: .single)).count == 3)

            // The player id finds the player in every app, or in the one app asked for
            let history = AccountHistoryRepository(database)
            #expect(
                try await history.accounts(matching: "player-1", naming: AccountNaming(apps: apps)) == accounts.sorted()
            )
            let axb = try #require(apps.scope("axb"))
            #expect(
                try await history.accounts(matching: "player-1", naming: .init(apps: apps, scope: axb)) == [
                    "axb/player-1"
                ])
            // A receipt id leads to its account, kept to the app asked for
            #expect(try await history.accounts(matching: "r1", naming: .init(apps: apps, scope: axb)).isEmpty)
        }
    }
}
