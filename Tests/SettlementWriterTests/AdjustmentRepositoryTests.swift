import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// An operator's grants and revokes, kept with their operator and reason, counted once per
/// idempotency key, refused whole when the books cannot take them; on both backends.
@Suite struct AdjustmentRepositoryTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// a1 with 100 coins from a purchase.
    func withAccount(_ backend: TestBackend, _ body: (any SQLDatabase, AdjustmentRepository) async throws -> Void)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: Fixture.catalog, now: t0)
            try await body(database, AdjustmentRepository(database))
        }
    }

    func grant(
        _ amount: Int, key: String = UUID().uuidString, account: String = "a1", currency: String = "coins",
        reason: String = "goodwill: lost order 42"
    ) -> AdjustmentRepository.Request {
        .init(
            accountID: account, change: .currency(currency, amount: amount), reason: reason, operatorName: "alice",
            idempotencyKey: key)
    }

    @Test(arguments: TestBackend.allCases) func aGrantIsOneLedgerEntryWithItsOperatorAndAWebhook(
        _ backend: TestBackend
    ) async throws {
        try await withAccount(backend) { database, store in
            let record = try await store.apply(grant(100, key: "k1"), catalog: Fixture.catalog, now: t0)
            #expect(record.balance == 200 && !record.replayed)
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.balances == ["coins": 200])
            let entry = try #require(account.ledger.first)
            #expect(
                entry.kind == .adjustment && entry.amount == 100 && entry.transactionID == "adjustment:\(record.id)")
            let kept = try await store.adjustments(of: "a1")
            #expect(kept.map(\.operatorName) == ["alice"])
            #expect(kept.first?.reason == "goodwill: lost order 42")
            let webhooks = try await database.snapshot {
                try await $0.rows("SELECT type, body FROM notification_outbox WHERE type = 'account.adjusted'")
            }
            #expect(webhooks.count == 1)
            let body: String = try webhooks[0].get("body")
            #expect(body.contains("\"operator\":\"alice\"") && body.contains("\"balance\":200"))
            #expect(try await LedgerRepository(database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aDoubleClickCountsOnceAndAReusedKeyIsRefused(_ backend: TestBackend)
        async throws
    {
        try await withAccount(backend) { database, store in
            let first = try await store.apply(grant(100, key: "click"), catalog: Fixture.catalog, now: t0)
            let second = try await store.apply(grant(100, key: "click"), catalog: Fixture.catalog, now: t0)
            #expect(second.replayed && second.id == first.id && second.balance == 200)
            await #expect(throws: AdjustmentRepository.Refusal.keyReused(first.id)) {
                try await store.apply(grant(500, key: "click"), catalog: Fixture.catalog, now: t0)
            }
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 200])
            #expect(try await store.adjustments(of: "a1").count == 1)
        }
    }

    @Test(arguments: TestBackend.allCases) func badRequestsAreRefusedWithAMessageAndChangeNothing(
        _ backend: TestBackend
    ) async throws {
        try await withAccount(backend) { database, store in
            let cases: [(AdjustmentRepository.Request, String)] = [
                (grant(0), "an adjustment of 0 changes nothing"),
                (grant(5, currency: "diamonds"), "no product grants the currency 'diamonds' (known: coins, gems)"),
                (grant(5, reason: "  "), "an adjustment needs a reason"),
                (grant(5, account: "nobody"), "no account 'nobody'"),
            ]
            for (request, message) in cases {
                await #expect(throws: AdjustmentRepository.Refusal.refused(message)) {
                    try await store.apply(request, catalog: Fixture.catalog, now: t0)
                }
            }
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 100])
            #expect(try await store.adjustments(of: "a1").isEmpty)
            let outbox = try await database.snapshot {
                try await $0.value("SELECT COUNT(*) AS n FROM notification_outbox", as: Int.self)
            }
            #expect(outbox == 1, "only the purchase's receipt.credited")
        }
    }

    @Test(arguments: TestBackend.allCases) func aRevokeBelowZeroFollowsThePolicyAndAnEntitlementIsGranted(
        _ backend: TestBackend
    ) async throws {
        try await withAccount(backend) { database, store in
            var clamp = Fixture.catalog
            clamp.rawNegativeBalance = "clamp"
            let revoke = try await store.apply(grant(-150), catalog: clamp, now: t0)
            #expect(revoke.balance == 0 && revoke.writtenOff == 50)
            let until = t0.addingTimeInterval(30 * 86_400)
            let vip = try await store.apply(
                .init(
                    accountID: "a1", change: .entitlement("vip", until: until), reason: "apology for the outage",
                    operatorName: "bob", idempotencyKey: "vip-1"), catalog: Fixture.catalog,
                now: t0.addingTimeInterval(60))
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.balances == ["coins": 0])
            #expect(account.entitlements.first { $0.name == "vip" }?.expiresAt == until)
            #expect(try await store.adjustments(of: "a1").map(\.id) == [vip.id, revoke.id])
            let types = try await database.snapshot {
                try await $0.rows("SELECT type FROM notification_outbox ORDER BY created_at, id").map {
                    try $0.get("type", as: String.self)
                }
            }
            #expect(types == ["receipt.credited", "account.adjusted", "entitlement.granted"])
            #expect(try await LedgerRepository(database).audit() == [])
        }
    }
}
