import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// Planning and answering subscription checks, against a real SQLite file.
@Suite struct SubscriptionCheckTests {
    let t0 = Fixture.t0
    let catalog = Fixture.catalog
    let hour: Duration = .seconds(3600)

    /// A legacy receipt bought the subscription `t1`, ending at `end`.
    func subscribe(_ database: any SQLDatabase, end: Date) async throws {
        try await database.acceptNew([Fixture.receipt("r1", account: "a1", payload: "bGVnYWN5")])
        _ = try await SettlementRepository(database).apply(
            [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1", product: Fixture.vip, expires: end)])],
            catalog: catalog, now: t0)
    }

    @Test(arguments: TestBackend.allCases) func eachExpiry_getsOneCheckBefore_andOneAfter_howeverOftenPlanned(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let subscriptions = SubscriptionRepository(database)
            let end = t0 + 7200
            try await subscribe(database, end: end)
            #expect(
                try await subscriptions.scheduleSubscriptionChecks(catalog: catalog, lead: hour, lag: hour, now: t0)
                    == 2)
            #expect(
                try await subscriptions.scheduleSubscriptionChecks(
                    catalog: catalog, lead: hour, lag: hour, now: t0 + 60)
                    == 0)

            // Not yet due an hour and a bit before; due at the hour.
            #expect(try await subscriptions.claimDueSubscriptionChecks(now: t0 + 3599, limit: 10).isEmpty)
            let before = try await subscriptions.claimDueSubscriptionChecks(now: end - 3600, limit: 10)
            #expect(before.map(\.phase) == ["before"])
            // Asked with the latest legacy receipt, as a submission of its own id.
            #expect(
                before.first?.submission.evidence
                    == .subscriptionCheck(originalTransactionID: "t1", latestReceipt: "bGVnYWN5"))
            #expect(before.first?.submission.id == before.first?.checkID)

            // Unconfirmed by the broker: offered again; confirmed: not.
            #expect(try await subscriptions.claimDueSubscriptionChecks(now: end - 3500, limit: 10).count == 1)
            try await subscriptions.markSubscriptionChecksPublished(before.map(\.checkID), at: end - 3500)
            #expect(try await subscriptions.claimDueSubscriptionChecks(now: end - 3400, limit: 10).isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func anAfterCheck_isSkipped_whenTheSubscriptionRenewedMeanwhile(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let subscriptions = SubscriptionRepository(database)
            let end = t0 + 600
            try await subscribe(database, end: end)
            try await subscriptions.scheduleSubscriptionChecks(catalog: catalog, lead: hour, lag: hour, now: t0)
            // A renewal arrives by another way (a receipt) before the after-check is due.
            try await database.acceptNew([Fixture.receipt("r2", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [
                    Fixture.valid(
                        "r2", account: "a1",
                        [Fixture.purchase("t2", product: Fixture.vip, expires: end + 86_400, original: "t1")])
                ],
                catalog: catalog, now: t0 + 60)
            // Nothing to ask Apple about that expiry any more, before or after.
            #expect(try await subscriptions.claimDueSubscriptionChecks(now: end + 3600, limit: 10).isEmpty)
            let checks = try await subscriptions.subscriptionChecks(originalTransactionID: "t1").filter {
                $0.expiresAt == end
            }
            #expect(checks.map(\.outcome) == ["renewed", "renewed"])
        }
    }

    @Test(arguments: TestBackend.allCases) func answers_extend_end_orFail(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let settlement = SettlementRepository(database)
            let subscriptions = SubscriptionRepository(database)
            let end = t0 + 600
            try await subscribe(database, end: end)
            try await subscriptions.scheduleSubscriptionChecks(catalog: catalog, lead: hour, lag: .seconds(60), now: t0)
            let before = try #require(try await subscriptions.claimDueSubscriptionChecks(now: t0, limit: 10).first)

            // Apple says nothing new before the expiry: unchanged.
            let unchanged = try await settlement.apply(
                [
                    Fixture.valid(
                        before.checkID, account: "a1", [Fixture.purchase("t1", product: Fixture.vip, expires: end)])
                ],
                catalog: catalog, now: t0 + 1)
            #expect(
                unchanged == [.subscriptionCheckApplied(checkID: before.checkID, status: "done", outcome: "unchanged")])

            // After the expiry, still nothing: the subscription ends, one webhook.
            let after = try #require(
                try await subscriptions.claimDueSubscriptionChecks(now: end + 60, limit: 10).first)
            let expired = try await settlement.apply(
                [
                    Fixture.valid(
                        after.checkID, account: "a1", [Fixture.purchase("t1", product: Fixture.vip, expires: end)])
                ],
                catalog: catalog, now: end + 61)
            #expect(expired == [.subscriptionCheckApplied(checkID: after.checkID, status: "done", outcome: "expired")])
            // The same verdict again (a redelivery) changes nothing.
            _ = try await settlement.apply(
                [
                    Fixture.valid(
                        after.checkID, account: "a1", [Fixture.purchase("t1", product: Fixture.vip, expires: end)])
                ],
                catalog: catalog, now: end + 62)
            #expect(try await database.allWebhooks().filter { $0.type == .subscriptionExpired }.count == 1)
            #expect(try await LedgerRepository(database).audit().isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func aRenewalInTheAnswer_isCreditedToTheBoundAccount(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let subscriptions = SubscriptionRepository(database)
            let end = t0 + 600
            try await subscribe(database, end: end)
            try await subscriptions.scheduleSubscriptionChecks(catalog: catalog, lead: hour, lag: hour, now: t0)
            let before = try #require(try await subscriptions.claimDueSubscriptionChecks(now: t0, limit: 10).first)
            let renewal = Fixture.purchase("t2", product: Fixture.vip, expires: end + 30 * 86_400, original: "t1")
            let result = try await SettlementRepository(database).apply(
                [Fixture.valid(before.checkID, account: "a1", [renewal])], catalog: catalog, now: t0 + 1)
            #expect(result == [.subscriptionCheckApplied(checkID: before.checkID, status: "done", outcome: "renewed")])
            #expect(
                try await LedgerRepository(database).account(id: "a1")?.entitlements.first?.expiresAt == end + 30
                    * 86_400)
            #expect(
                try await database.allWebhooks().contains {
                    $0.type == .subscriptionRenewed && $0.accountID == "a1"
                })
            // A rejected answer about the new expiry fails that check and changes nothing else.
            let newEnd = end + 30 * 86_400
            try await subscriptions.scheduleSubscriptionChecks(
                catalog: catalog, lead: hour, lag: hour, now: newEnd - 7200)
            let next = try #require(
                try await subscriptions.claimDueSubscriptionChecks(now: newEnd - 3600, limit: 10).first)
            let failed = try await SettlementRepository(database).apply(
                [Fixture.verdict(.rejected, next.checkID, account: "a1", reason: "apple_status_21010", attempts: 1)],
                catalog: catalog, now: newEnd - 3599)
            #expect(failed == [.subscriptionCheckApplied(checkID: next.checkID, status: "failed", outcome: nil)])
            #expect(try await LedgerRepository(database).account(id: "a1")?.entitlements.first?.expiresAt == newEnd)
        }
    }
}
