import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// What a credited purchase owes its store (here Google's consumption, as its verifier asks
/// for it): written with the credit, once per transaction however many receipts carry it,
/// claimed under a lease, retried or given up on, and counted overdue by store; on both
/// backends.
@Suite struct ConfirmationRepositoryTests {
    let t0 = Fixture.t0
    let purchase = GooglePlayPurchase(packageName: "com.example.game", productID: Fixture.coins, purchaseToken: "tok-1")
    /// What the Google verifier puts on the transaction (`GooglePlayConfirmation.json`).
    let payload = """
        {"action":"consume","purchase":{"package_name":"com.example.game","product_id":"com.example.coins100",\
        "purchase_token":"tok-1"}}
        """

    /// `r1` (Google Play, account a1) credited; `r2`, the same token from a2, already credited.
    func withCreditedPurchase(_ backend: TestBackend, _ body: (any SQLDatabase) async throws -> Void) async throws {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([
                Fixture.receipt("r1", account: "a1", payload: purchase.canonicalJSON, kind: .googlePlay),
                Fixture.receipt("r2", account: "a2", payload: purchase.canonicalJSON, kind: .googlePlay),
            ])
            let transaction = VerifiedTransaction(
                transactionID: "GPA.1", originalTransactionID: "tok-1", productID: Fixture.coins,
                confirmation: payload)
            _ = try await SettlementRepository(database).apply(
                [
                    Fixture.valid("r1", account: "a1", [transaction]),
                    Fixture.valid("r2", account: "a2", [transaction]),
                ], catalog: Fixture.catalog, now: t0)
            try await body(database)
        }
    }

    @Test(arguments: TestBackend.allCases) func aCreditOwesOneConfirmationClaimedUnderALease(_ backend: TestBackend)
        async throws
    {
        try await withCreditedPurchase(backend) { database in
            let store = ConfirmationRepository(database)
            let owed = try #require(try await store.confirmation(store: "google", transactionID: "GPA.1"))
            #expect(owed.status == .pending && owed.receiptID == "r1" && owed.payload == payload)

            let claimed = try await store.claimDue(stores: ["google"], now: t0, limit: 10)
            #expect(claimed.map(\.transactionID) == ["GPA.1"] && claimed.first?.attempts == 1)
            // Another store's confirmer leaves it alone
            #expect(try await store.claimDue(stores: ["huawei"], now: t0.addingTimeInterval(99), limit: 10).isEmpty)
            // Leased: another worker finds nothing until the lease runs out
            #expect(try await store.claimDue(stores: ["google"], now: t0.addingTimeInterval(1), limit: 10).isEmpty)
            #expect(try await store.claimDue(stores: ["google"], now: t0.addingTimeInterval(61), limit: 10).count == 1)

            try await store.markDone(owed, now: t0.addingTimeInterval(62))
            #expect(try await store.confirmation(store: "google", transactionID: "GPA.1")?.status == .done)
            #expect(try await store.claimDue(stores: ["google"], now: t0.addingTimeInterval(999), limit: 10).isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func oneLeftPendingForTwoDaysOrGivenUpOnIsOverdue(_ backend: TestBackend)
        async throws
    {
        try await withCreditedPurchase(backend) { database in
            let store = ConfirmationRepository(database)
            let owed = try #require(try await store.confirmation(store: "google", transactionID: "GPA.1"))
            let twoDays: TimeInterval = 2 * 86_400
            #expect(try await store.overdue(olderThan: twoDays, now: t0.addingTimeInterval(3600)).isEmpty)
            #expect(
                try await store.overdue(olderThan: twoDays, now: t0.addingTimeInterval(twoDays + 1)) == ["google": 1])

            try await store.markFailed(owed, error: "HTTP 503", retryAt: t0.addingTimeInterval(10))
            let retried = try await store.confirmation(store: "google", transactionID: "GPA.1")
            #expect(retried?.status == .pending && retried?.lastError == "HTTP 503")
            try await store.markFailed(owed, error: "not found", retryAt: nil)
            let failed = try await store.confirmation(store: "google", transactionID: "GPA.1")
            #expect(failed?.status == .failed && failed?.lastError == "not found")
            #expect(try await store.overdue(olderThan: twoDays, now: t0.addingTimeInterval(60)) == ["google": 1])
        }
    }

    @Test(arguments: TestBackend.allCases) func aHundredDueAreClaimedInOneUpdate(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { base in
            // Given a hundred credited Play purchases, each owing its consumption
            let tokens = (0..<100).map { "tok-\($0)" }
            try await base.acceptNew(
                tokens.map { token in
                    let purchase = GooglePlayPurchase(
                        packageName: "com.example.game", productID: Fixture.coins, purchaseToken: token)
                    return Fixture.receipt(
                        "r-\(token)", account: "a1", payload: purchase.canonicalJSON, kind: .googlePlay)
                })
            _ = try await SettlementRepository(base).apply(
                tokens.map { token in
                    Fixture.valid(
                        "r-\(token)", account: "a1",
                        [
                            VerifiedTransaction(
                                transactionID: "GPA.\(token)", originalTransactionID: token, productID: Fixture.coins,
                                confirmation: payload)
                        ])
                }, catalog: Fixture.catalog, now: t0)

            // When they are claimed at once
            let database = CountingDatabase(base)
            let claimed = try await ConfirmationRepository(database).claimDue(stores: ["google"], now: t0, limit: 100)

            // Then each is claimed once, by one read and one update (and the transaction's two)
            #expect(Set(claimed.map(\.transactionID)) == Set(tokens.map { "GPA.\($0)" }))
            #expect(claimed.allSatisfy { $0.attempts == 1 })
            #expect(database.take() == 4)
            // And all are leased: none is due again at once
            #expect(try await ConfirmationRepository(base).claimDue(stores: ["google"], now: t0, limit: 100).isEmpty)
        }
    }
}
