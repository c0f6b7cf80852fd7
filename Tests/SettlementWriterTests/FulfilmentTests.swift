import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

@Suite struct FulfilmentTests {
    let catalog = Fixture.catalog
    let t0 = Fixture.t0

    @Test(arguments: TestBackend.allCases) func aValidConsumableCreditsBalanceLedgerAndOutbox(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            // Given an accepted receipt
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])

            // When a verdict with two coin packs (quantity 2) is applied
            let results = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1", quantity: 2)], attempts: 1)],
                catalog: catalog, now: t0)

            // Then the receipt is credited with 200 coins
            #expect(results == [.applied(receiptID: "r1", status: .credited, reason: nil)])
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.balances == ["coins": 200])
            #expect(account.ledger.count == 1)
            #expect(account.ledger.first?.amount == 200)
            #expect(account.ledger.first?.kind == .purchase)
            #expect(account.ledger.first?.transactionID == "t1")
            let receipt = try #require(try await ReceiptRepository(database).receipt(id: "r1"))
            #expect(receipt.status == .credited)
            #expect(receipt.attempts == 1)
            #expect(receipt.environment == "Sandbox")
            #expect(
                receipt.transactions == [
                    .init(
                        transactionID: "t1", productID: Fixture.coins, outcome: .credited, currency: "coins",
                        amount: 200)
                ])

            // And one receipt.credited webhook is due, its body complete and with sorted keys
            let due = try await OutboxRepository(database).dueWebhooks(now: t0, limit: 10)
            #expect(due.count == 1)
            let notification = try #require(due.first)
            #expect(notification.type == .receiptCredited)
            #expect(notification.id.hasPrefix("evt_"))
            #expect(notification.body.hasPrefix(#"{"account_id":"a1","data":{"balances":{"coins":200}"#))
            let body = try Fixture.json(notification.body)
            #expect(body["type"] as? String == "receipt.credited")
            #expect(body["receipt_id"] as? String == "r1")
            let data = try #require(body["data"] as? [String: Any])
            let transactions = try #require(data["transactions"] as? [[String: Any]])
            #expect(transactions.first?["transaction_id"] as? String == "t1")
            #expect(transactions.first?["amount"] as? Int == 200)
        }
    }

    @Test(arguments: TestBackend.allCases) func applyingTheSameVerdictAgainChangesNothing(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            // Given a credited receipt
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            let verdict = Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])
            _ = try await SettlementRepository(database).apply([verdict], catalog: catalog, now: t0)

            // When the same verdict is delivered again (after a crash before the ack)
            let again = try await SettlementRepository(database).apply(
                [verdict], catalog: catalog, now: t0.addingTimeInterval(60))

            // Then it is already final and nothing moved
            #expect(again == [.alreadyFinal(receiptID: "r1", status: .credited)])
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.balances == ["coins": 100])
            #expect(account.ledger.count == 1)
            #expect(try await OutboxRepository(database).pendingWebhookCount() == 1)
            #expect(try await ReceiptRepository(database).receipt(id: "r1")?.updatedAt == t0)
        }
    }

    @Test(arguments: TestBackend.allCases) func anAppleTransactionCreditsOnceEvenAcrossAccounts(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            // Given a1 was credited for Apple transaction t1
            try await database.acceptNew([
                Fixture.receipt("r1", account: "a1", payload: "P1"),
                Fixture.receipt("r2", account: "a2", payload: "P2"),
            ])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: catalog, now: t0)

            // When a2 submits another receipt that carries t1
            let results = try await SettlementRepository(database).apply(
                [Fixture.valid("r2", account: "a2", [Fixture.purchase("t1")])], catalog: catalog, now: t0)

            // Then it credits nothing to anyone and is rejected as already credited
            #expect(results == [.applied(receiptID: "r2", status: .rejected, reason: "already_credited")])
            #expect(try await LedgerRepository(database).account(id: "a2")?.balances == [:])
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 100])
            #expect(
                try await ReceiptRepository(database).receipt(id: "r2")?.transactions.map(\.outcome) == [
                    .alreadyCredited
                ])
            let rejected = try await OutboxRepository(database).dueWebhooks(now: t0, limit: 10).filter {
                $0.receiptID == "r2"
            }
            #expect(rejected.map(\.type) == [.receiptRejected])
            let notification = try #require(rejected.first)
            let data = try #require(try Fixture.json(notification.body)["data"] as? [String: Any])
            #expect(data["reason"] as? String == "already_credited")
        }
    }

    @Test(arguments: TestBackend.allCases) func aRepeatedTransactionInsideOneReceiptCreditsOnce(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            // Given a legacy receipt whose answer lists t1 twice (in_app and latest_receipt_info)
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])

            // When it is applied
            let results = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1"), Fixture.purchase("t1")])],
                catalog: catalog, now: t0)

            // Then t1 is credited once
            #expect(results == [.applied(receiptID: "r1", status: .credited, reason: nil)])
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 100])
            #expect(try await ReceiptRepository(database).receipt(id: "r1")?.transactions.count == 1)
        }
    }

    @Test(arguments: TestBackend.allCases) func anEntitlementExtendsToTheLatestExpiry(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            let january = t0.addingTimeInterval(30 * 86_400)
            let february = t0.addingTimeInterval(60 * 86_400)
            let december = t0.addingTimeInterval(-30 * 86_400)
            try await database.acceptNew((1...3).map { Fixture.receipt("r\($0)", account: "a1") })

            // Given a monthly subscription bought until January
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1", product: Fixture.vip, expires: january)])],
                catalog: catalog, now: t0)
            #expect(
                try await LedgerRepository(database).account(id: "a1")?.entitlements == [
                    .init(name: "vip", expiresAt: january)
                ])

            // When a renewal until February arrives, and then an older period until December
            _ = try await SettlementRepository(database).apply(
                [
                    Fixture.valid(
                        "r2", account: "a1",
                        [Fixture.purchase("t2", product: Fixture.vip, expires: february, original: "t1")]),
                    Fixture.valid(
                        "r3", account: "a1",
                        [Fixture.purchase("t0", product: Fixture.vip, expires: december, original: "t1")]),
                ],
                catalog: catalog, now: t0)

            // Then the entitlement runs until February, and each receipt shows the period it paid for
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.entitlements == [.init(name: "vip", expiresAt: february)])
            #expect(account.balances.isEmpty)
            #expect(account.ledger.isEmpty)
            let r2 = try #require(try await ReceiptRepository(database).receipt(id: "r2"))
            #expect(r2.status == .credited)
            #expect(r2.transactions.first?.entitlement == "vip")
            #expect(r2.transactions.first?.expiresAt == february)
        }
    }

    @Test(arguments: TestBackend.allCases) func aPermanentEntitlementStaysPermanent(_ backend: TestBackend) async throws
    {
        try await withTestDatabase(backend) { database in
            // Given a non-consumable unlock (no expiry)
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1", product: Fixture.noAds)])],
                catalog: catalog, now: t0)

            // Then it is held for ever, and encodes expires_at as null
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.entitlements == [.init(name: "noads", expiresAt: nil)])
            let json = String(decoding: try WireCoding.encoder().encode(account), as: UTF8.self)
            #expect(json.contains(#""entitlements":[{"expires_at":null,"name":"noads"}]"#))
        }
    }

    @Test(arguments: TestBackend.allCases) func aCancelledTransactionCreditsNothingNowOrLater(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1"), Fixture.receipt("r2", account: "a1")])

            // When a receipt whose only transaction Apple refunded is applied
            let results = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1", cancelled: t0)])], catalog: catalog,
                now: t0)

            // Then nothing is credited and the receipt is rejected as refunded
            #expect(results == [.applied(receiptID: "r1", status: .rejected, reason: "refunded")])
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == [:])

            // When a later receipt carries the same transaction without the cancellation
            let later = try await SettlementRepository(database).apply(
                [Fixture.valid("r2", account: "a1", [Fixture.purchase("t1")])], catalog: catalog, now: t0)

            // Then it still credits nothing
            #expect(later == [.applied(receiptID: "r2", status: .rejected, reason: "refunded")])
            #expect(try await LedgerRepository(database).account(id: "a1")?.ledger == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func anUnknownProductCreditsNothingUntilTheCatalogSellsIt(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1"), Fixture.receipt("r2", account: "a1")])

            // When a receipt for a product the catalog does not sell is applied
            let results = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1", product: "com.example.mystery")])],
                catalog: catalog, now: t0)

            // Then it is rejected as unknown_product and credits nothing
            #expect(results == [.applied(receiptID: "r1", status: .rejected, reason: "unknown_product")])
            #expect(
                try await ReceiptRepository(database).receipt(id: "r1")?.transactions.map(\.outcome) == [
                    .unknownProduct
                ])
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == [:])

            // When the catalog learns the product and the receipt is sent again
            var fixed = catalog
            fixed.products.append(
                Product(productID: "com.example.mystery", kind: .consumable, grant: Grant(currency: "gold", amount: 5)))
            let later = try await SettlementRepository(database).apply(
                [Fixture.valid("r2", account: "a1", [Fixture.purchase("t1", product: "com.example.mystery")])],
                catalog: fixed, now: t0)

            // Then the transaction is credited after all
            #expect(later == [.applied(receiptID: "r2", status: .credited, reason: nil)])
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["gold": 5])
        }
    }

    @Test(arguments: TestBackend.allCases) func aReceiptWithSomethingCreditedIsCreditedAndShowsEveryTransaction(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])

            // When a receipt carries a known product and an unknown one
            let results = try await SettlementRepository(database).apply(
                [
                    Fixture.valid(
                        "r1", account: "a1",
                        [
                            Fixture.purchase("t1", product: Fixture.gems),
                            Fixture.purchase("t2", product: "com.example.x"),
                        ])
                ], catalog: catalog, now: t0)

            // Then it is credited, and shows what became of each
            #expect(results == [.applied(receiptID: "r1", status: .credited, reason: nil)])
            #expect(
                try await ReceiptRepository(database).receipt(id: "r1")?.transactions.map(\.outcome) == [
                    .credited, .unknownProduct,
                ])
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["gems": 10])
        }
    }
}
