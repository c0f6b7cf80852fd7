import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// Support's view of an account: found by any id that leads to it, its story in order;
/// on both backends.
@Suite struct AccountHistoryRepositoryTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: TestBackend.allCases) func anAccountIsFoundByAnyIdThatLeadsToIt(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1", original: "o1")])],
                catalog: Fixture.catalog, now: t0)
            let history = AccountHistoryRepository(database)
            for id in ["a1", "r1", "t1", "o1", " t1 "] {
                #expect(try await history.accounts(matching: id) == ["a1"], "\(id)")
            }
            #expect(try await history.accounts(matching: "nobody").isEmpty)
            #expect(try await history.accounts(matching: "").isEmpty)
            #expect(try await history.accounts(matching: String(repeating: "x", count: 300)).isEmpty)
            #expect(try await history.story(of: "nobody", now: t0) == nil)
        }
    }

    @Test(arguments: TestBackend.allCases) func theTimelineTellsTheStoryInOrderWithItsWebhooks(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: Fixture.catalog,
                now: t0.addingTimeInterval(1))
            let grant = try AdjustmentRepository.Request.parse(
                accountID: "a1", currency: "coins", amount: "+100", entitlement: nil, until: nil,
                reason: "lost order 42", operatorName: "alice", idempotencyKey: "k1")
            _ = try await AdjustmentRepository(database).apply(
                grant, catalog: Fixture.catalog, now: t0.addingTimeInterval(2))
            let vip = try AdjustmentRepository.Request.parse(
                accountID: "a1", currency: nil, amount: nil, entitlement: "vip", until: "2027-02-15",
                reason: "outage", operatorName: "bob", idempotencyKey: "k2")
            _ = try await AdjustmentRepository(database).apply(
                vip, catalog: Fixture.catalog, now: t0.addingTimeInterval(3))

            let story = try #require(try await AccountHistoryRepository(database).story(of: "a1", now: t0))
            #expect(story.account.balances == ["coins": 200])
            let kinds = story.timeline.map(\.kind)
            #expect(kinds.filter { $0 != .receipt } == [.credit, .adjustment, .adjustment], "\(story.timeline)")
            #expect(story.timeline.first?.summary.hasPrefix("receipt received") == true)
            #expect(story.timeline.map(\.at) == story.timeline.map(\.at).sorted())
            let adjustments = story.timeline.filter { $0.kind == .adjustment }.map(\.summary)
            #expect(adjustments[0] == "alice granted +100 coins, balance 200: lost order 42")
            #expect(adjustments[1].hasPrefix("bob granted vip until 2027-02-15"))
            #expect(Set(story.webhooks.map(\.type)) == [.receiptCredited, .accountAdjusted, .entitlementGranted])
            #expect(story.webhooks.allSatisfy { $0.status == .pending })

            // Once the grant's end has passed, the timeline shows the expiry last.
            let later = try #require(
                try await AccountHistoryRepository(database).story(of: "a1", now: t0.addingTimeInterval(40 * 86_400)))
            #expect(later.timeline.last?.kind == .expiry && later.timeline.last?.summary == "vip expired")
        }
    }

    @Test func whatAnOperatorTypedIsReadOrRefusedWithTheFieldNamed() throws {
        func parse(
            currency: String? = "coins", amount: String? = "5", entitlement: String? = nil, until: String? = nil,
            reason: String = "r", key: String = "k"
        ) throws(AdjustmentRepository.Refusal) -> AdjustmentRepository.Request.Change {
            try AdjustmentRepository.Request.parse(
                accountID: "a", currency: currency, amount: amount, entitlement: entitlement, until: until,
                reason: reason, operatorName: "o", idempotencyKey: key
            ).change
        }
        #expect(try parse(amount: "-40") == .currency("coins", amount: -40))
        #expect(
            try parse(currency: nil, amount: nil, entitlement: "vip", until: "2027-01-15T12:00:00Z")
                == .entitlement("vip", until: Date(timeIntervalSince1970: 1_800_014_400)))
        let refusals: [(() throws(AdjustmentRepository.Refusal) -> AdjustmentRepository.Request.Change, String)] = [
            (
                { () throws(AdjustmentRepository.Refusal) in try parse(amount: "ten") },
                "the amount 'ten' is not a whole number"
            ),
            (
                { () throws(AdjustmentRepository.Refusal) in try parse(amount: " ") },
                "an amount is required (negative takes back)"
            ),
            (
                { () throws(AdjustmentRepository.Refusal) in try parse(currency: nil, amount: nil) },
                "say what to change: a currency and an amount, or an entitlement"
            ),
            (
                { () throws(AdjustmentRepository.Refusal) in try parse(entitlement: "vip") },
                "change a currency or an entitlement, not both at once"
            ),
            (
                { () throws(AdjustmentRepository.Refusal) in try parse(currency: nil, entitlement: "vip", until: "soon")
                },
                "the date 'soon' is neither YYYY-MM-DD nor an RFC 3339 date and time"
            ),
            (
                { () throws(AdjustmentRepository.Refusal) in
                    try parse(currency: nil, entitlement: "vip", until: "99999-01-01")
                },
                "the date '99999-01-01' is neither YYYY-MM-DD nor an RFC 3339 date and time"
            ),
            (
                { () throws(AdjustmentRepository.Refusal) in
                    try parse(currency: nil, entitlement: "vip", until: "1969-12-31")
                },
                "the date '1969-12-31' is outside years 1970-9999"
            ),
            (
                { () throws(AdjustmentRepository.Refusal) in try parse(amount: "1000000000001") },
                "the amount 1000000000001 is beyond ±1000000000000"
            ),
            (
                { () throws(AdjustmentRepository.Refusal) in try parse(reason: "lost\u{0}order") },
                "the reason holds a control character"
            ),
            (
                { () throws(AdjustmentRepository.Refusal) in try parse(key: "") },
                "the idempotency key must be 1 to 255 characters"
            ),
        ]
        for (attempt, message) in refusals {
            #expect { try attempt() } throws: { "\($0)" == message }
        }
    }
}
