import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// Schema v15: each store confirmation names the app of the account its credit went to, so
/// that the app's own stores pay it, and each reconciliation run the app whose History it
/// read; rows written before (at v14) are the default app's. On both backends.
@Suite struct ConfirmationAppTests {
    let t0 = Fixture.t0

    /// What Google's verifier puts on a transaction of `token`.
    static func payload(_ token: String) -> String {
        """
        {"action":"consume","purchase":{"package_name":"com.example.game","product_id":"com.example.coins100",\
        "purchase_token":"\(token)"}}
        """
    }

    @Test(arguments: TestBackend.allCases) func rowsWrittenAtV14AreTheDefaultApps(_ backend: TestBackend)
        async throws
    {
        let t0 = t0
        // Given a database written at v14 with a confirmation owed, as v14's writer left it
        try await withTestDatabase(
            backend, writtenAt: 14,
            by: { database in
                try await database.transaction { db in
                    _ = try await db.execute(
                        """
                        INSERT INTO store_confirmations (
                            store, transaction_id, payload, receipt_id, status, attempts, next_attempt_at, created_at)
                        VALUES ('google', 'GPA.old', ?, NULL, 'pending', 1, ?, ?)
                        """, [Self.payload("tok-old"), t0, t0])
                    _ = try await db.execute(
                        """
                        INSERT INTO reconciliation_runs (
                            trigger, mode, window_start, window_end, examined, missing, fed, started_at, finished_at)
                        VALUES ('schedule', 'apply', ?, ?, 0, 0, 0, ?, ?)
                        """, [t0, t0.addingTimeInterval(3600), t0, t0])
                }
            }
        ) { database, _ in
            // When this program opens it (v15 runs): the row is the default app's, as it was
            let store = ConfirmationRepository(database)
            let old = try #require(try await store.confirmation(store: "google", transactionID: "GPA.old"))
            #expect(old.app == nil && old.status == .pending && old.attempts == 1)
            #expect(old.payload == Self.payload("tok-old") && old.nextAttemptAt == t0)
            // Then another app's confirmer leaves it, the default app's claims it
            #expect(try await store.claimDue(stores: ["google"], app: "racing", now: t0, limit: 10).isEmpty)
            #expect(
                try await store.claimDue(stores: ["google"], now: t0, limit: 10).map(\.transactionID) == ["GPA.old"])
            // And the reconciliation run written then was the default app's: it goes on from it
            #expect(try await ReconciliationRepository(database).coveredUntil() == t0.addingTimeInterval(3600))
            #expect(try await ReconciliationRepository(database, app: "racer").coveredUntil() == nil)
        }
    }

    @Test(arguments: TestBackend.allCases) func aCreditOwesItsConfirmationUnderTheCreditedAccountsApp(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given a purchase credited to the default app's `p1`, and one to the racing game's `p1`
            let purchases = ["tok-1": "p1", "tok-2": "racing/p1"]
            try await database.acceptNew(
                purchases.sorted(by: { $0.key < $1.key }).map { token, account in
                    let payload = GooglePlayPurchase(
                        packageName: "com.example.game", productID: Fixture.coins, purchaseToken: token
                    ).canonicalJSON
                    return Fixture.receipt("r-\(token)", account: account, payload: payload, kind: .googlePlay)
                })
            _ = try await SettlementRepository(database).apply(
                purchases.keys.sorted().map { token in
                    Fixture.valid(
                        "r-\(token)", account: purchases[token]!,
                        [
                            VerifiedTransaction(
                                transactionID: "GPA.\(token)", originalTransactionID: token,
                                productID: Fixture.coins, confirmation: Self.payload(token))
                        ])
                }, catalog: Fixture.catalog, now: t0)

            // Then each confirmation names its app, and each app's confirmer claims only its own
            let store = ConfirmationRepository(database)
            #expect(try await store.confirmation(store: "google", transactionID: "GPA.tok-1")?.app == nil)
            #expect(try await store.confirmation(store: "google", transactionID: "GPA.tok-2")?.app == "racing")
            let racing = try await store.claimDue(stores: ["google"], app: "racing", now: t0, limit: 10)
            #expect(racing.map(\.transactionID) == ["GPA.tok-2"])
            let defaults = try await store.claimDue(stores: ["google"], now: t0, limit: 10)
            #expect(defaults.map(\.transactionID) == ["GPA.tok-1"])
            #expect(try await LedgerRepository(database).audit() == [])
        }
    }
}
