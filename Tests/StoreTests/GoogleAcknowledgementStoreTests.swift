import Foundation
import PipelineCore
import PipelineTesting
import Store
import Testing

/// What a credited Play purchase owes Google: written with the credit, once per token,
/// claimed under a lease, retried or given up on, and counted overdue; on both backends.
@Suite struct GoogleAcknowledgementStoreTests {
    let t0 = Fixture.t0
    let purchase = GooglePlayPurchase(packageName: "com.example.game", productID: Fixture.coins, purchaseToken: "tok-1")

    /// `r1` (Google Play, account a1) credited; `r2`, the same token from a2, already credited.
    func withCreditedPurchase(_ backend: TestBackend, _ body: (any SQLDatabase) async throws -> Void) async throws {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([
                Fixture.receipt("r1", account: "a1", payload: purchase.canonicalJSON, kind: .googlePlay),
                Fixture.receipt("r2", account: "a2", payload: purchase.canonicalJSON, kind: .googlePlay),
            ])
            let transaction = VerifiedTransaction(
                transactionID: "GPA.1", originalTransactionID: "tok-1", productID: Fixture.coins)
            _ = try await SettlementStore(database).apply(
                [
                    Fixture.valid("r1", account: "a1", [transaction]),
                    Fixture.valid("r2", account: "a2", [transaction]),
                ], catalog: Fixture.catalog, now: t0)
            try await body(database)
        }
    }

    @Test(arguments: TestBackend.allCases) func aCreditOwesOneConsumptionClaimedUnderALease(_ backend: TestBackend)
        async throws
    {
        try await withCreditedPurchase(backend) { database in
            let store = GoogleAcknowledgementStore(database)
            let owed = try #require(try await store.acknowledgement(token: "tok-1"))
            #expect(owed.action == .consume && owed.status == .pending && owed.receiptID == "r1")
            #expect(owed.purchase == purchase)

            let claimed = try await store.claimDue(now: t0, limit: 10)
            #expect(claimed.map(\.purchase.purchaseToken) == ["tok-1"] && claimed.first?.attempts == 1)
            // Leased: another worker finds nothing until the lease runs out
            #expect(try await store.claimDue(now: t0.addingTimeInterval(1), limit: 10).isEmpty)
            #expect(try await store.claimDue(now: t0.addingTimeInterval(61), limit: 10).count == 1)

            try await store.markDone(token: "tok-1", now: t0.addingTimeInterval(62))
            #expect(try await store.acknowledgement(token: "tok-1")?.status == .done)
            #expect(try await store.claimDue(now: t0.addingTimeInterval(999), limit: 10).isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func oneLeftPendingForTwoDaysOrGivenUpOnIsOverdue(_ backend: TestBackend)
        async throws
    {
        try await withCreditedPurchase(backend) { database in
            let store = GoogleAcknowledgementStore(database)
            let twoDays: TimeInterval = 2 * 86_400
            #expect(try await store.overdue(olderThan: twoDays, now: t0.addingTimeInterval(3600)) == 0)
            #expect(try await store.overdue(olderThan: twoDays, now: t0.addingTimeInterval(twoDays + 1)) == 1)

            try await store.markFailed(token: "tok-1", error: "HTTP 503", retryAt: t0.addingTimeInterval(10))
            let retried = try await store.acknowledgement(token: "tok-1")
            #expect(retried?.status == .pending && retried?.lastError == "HTTP 503")
            try await store.markFailed(token: "tok-1", error: "not found", retryAt: nil)
            #expect(try await store.acknowledgement(token: "tok-1")?.status == .failed)
            #expect(try await store.overdue(olderThan: twoDays, now: t0.addingTimeInterval(60)) == 1)
        }
    }
}
