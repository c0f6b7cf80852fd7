import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization
import Testing

@testable import DatabaseTesting

/// Each purchase rule at its edges, against a real SQLite file.
@Suite struct OrderRuleTests {
    static let saleFrom = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01 00:00:00 UTC
    static let saleUntil = Date(timeIntervalSince1970: 1_765_152_000)  // 2025-12-08 00:00:00 UTC

    static let catalog = Catalog(
        products: [
            Product(
                productID: "winter_pack", kind: .consumable, grant: Grant(currency: "coins", amount: 900),
                rules: PurchaseRules(sale: SaleWindow(from: saleFrom, until: saleUntil))),
            Product(
                productID: "daily_gems", kind: .consumable, grant: Grant(currency: "gems", amount: 10),
                rules: PurchaseRules(dailyLimit: 2)),
            Product(
                productID: "coins100", kind: .consumable, appleProductID: "com.example.coins100",
                grant: Grant(currency: "coins", amount: 100),
                rules: PurchaseRules(
                    firstPurchase: FirstPurchase(
                        bonus: Grant(currency: "coins", amount: 50), appleProductID: "com.example.coins100.first"))),
        ],
        // UTC+9, no daylight saving: local midnight is 15:00 UTC the day before.
        timeZone: "Asia/Tokyo")

    func order(
        _ database: any SQLDatabase, _ product: String, account: String = "a1", at now: Date,
        lifetime: Duration = .seconds(600), token: String? = nil
    ) async throws -> OrderOutcome {
        try await OrderRepository(database).createOrder(
            NewOrder(accountID: account, productID: product, appAccountToken: token), catalog: Self.catalog,
            lifetime: lifetime, now: now)
    }

    func created(_ outcome: OrderOutcome) async throws -> OrderDetails {
        guard case .created(let order) = outcome else { throw RuleTestError("expected an order, got \(outcome)") }
        return order
    }

    func refusal(_ outcome: OrderOutcome) -> String? {
        guard case .refused(let reason) = outcome else { return nil }
        return reason.code
    }

    // MARK: Sale window

    @Test(arguments: TestBackend.allCases) func saleWindow_opensAtItsFirstSecond_andClosesAfterItsLast(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            #expect(
                refusal(try await order(database, "winter_pack", account: "early", at: Self.saleFrom - 1))
                    == "sale_not_started")
            #expect(
                try await created(order(database, "winter_pack", account: "first", at: Self.saleFrom)).status == .open)
            #expect(
                try await created(order(database, "winter_pack", account: "last", at: Self.saleUntil - 1)).status
                    == .open)
            #expect(
                refusal(try await order(database, "winter_pack", account: "late", at: Self.saleUntil)) == "sale_ended")
        }
    }

    // MARK: Daily limit

    @Test(arguments: TestBackend.allCases)
    func dailyLimit_refusesTheThirdOrderOfALocalDay_andAllowsItAfterLocalMidnight(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let midnight = Date(timeIntervalSince1970: 1_764_687_600)  // 2025-12-03 00:00:00 Tokyo
            try await pay(
                database, try await created(order(database, "daily_gems", at: midnight - 300)), transaction: "t1",
                at: midnight - 290)
            try await pay(
                database, try await created(order(database, "daily_gems", at: midnight - 200)), transaction: "t2",
                at: midnight - 190)

            // At the last second of the Tokyo day the limit holds...
            #expect(refusal(try await order(database, "daily_gems", at: midnight - 1)) == "daily_limit_reached")
            // ...and at its first second the next day begins (still the same UTC day).
            #expect(try await created(order(database, "daily_gems", at: midnight)).status == .open)
            // Another account has its own limit.
            #expect(try await created(order(database, "daily_gems", account: "a2", at: midnight - 1)).status == .open)
        }
    }

    @Test(arguments: TestBackend.allCases) func dailyLimit_countsAPaymentThatCameWithoutAnOrder(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let now = Date(timeIntervalSince1970: 1_764_600_000)
            try await database.acceptNew([Fixture.receipt("r1", account: "a1"), Fixture.receipt("r2", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [
                    Fixture.valid("r1", account: "a1", [Fixture.purchase("t1", product: "daily_gems")]),
                    Fixture.valid("r2", account: "a1", [Fixture.purchase("t2", product: "daily_gems")]),
                ], catalog: Self.catalog, now: now)
            #expect(refusal(try await order(database, "daily_gems", at: now + 10)) == "daily_limit_reached")
        }
    }

    // MARK: First purchase

    @Test(arguments: TestBackend.allCases) func firstPurchase_getsTheFirstPriceAndBonus_theSecondDoesNot(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let now = Date(timeIntervalSince1970: 1_764_600_000)
            let first = try await created(order(database, "coins100", at: now))
            #expect(first.firstPurchase)
            #expect(first.appleProductID == "com.example.coins100.first")
            try await pay(database, first, transaction: "t1", appleProductID: "com.example.coins100.first", at: now + 5)
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 150])

            let second = try await created(order(database, "coins100", at: now + 10))
            #expect(!second.firstPurchase)
            #expect(second.appleProductID == "com.example.coins100")
            try await pay(database, second, transaction: "t2", appleProductID: "com.example.coins100", at: now + 15)
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 250])

            let offers = try await OrderRepository(database).offers(
                accountID: "a1", catalog: Self.catalog, now: now + 20)
            #expect(offers.first { $0.productID == "coins100" }?.firstPurchase == false)
            let fresh = try await OrderRepository(database).offers(
                accountID: "new", catalog: Self.catalog, now: now + 20)
            let offer = try #require(fresh.first { $0.productID == "coins100" })
            #expect(offer.firstPurchase && offer.firstPurchaseBonus?.amount == 50)
            #expect(offer.appleProductID == "com.example.coins100.first")
        }
    }

    // MARK: One open order

    @Test func twoConcurrentOrders_forOneProduct_exactlyOneWins() async throws {
        try await withTemporaryDatabase { (database: SQLiteDatabase, path: String) async throws in
            let now = Date(timeIntervalSince1970: 1_764_600_000)
            // Two connections to one file, as two intake processes would have.
            let other = try SQLiteDatabase(path: path)
            for round in 0..<20 {
                let account = "racer-\(round)"
                let all = await withTaskGroup(of: OrderOutcome.self) { group in
                    for index in 0..<2 {
                        group.addTask {
                            let outcome = try? await OrderRepository(index == 0 ? database : other).createOrder(
                                NewOrder(accountID: account, productID: "coins100"), catalog: Self.catalog,
                                lifetime: .seconds(600), now: now)
                            return outcome ?? .unknownProduct
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(all.filter { if case .created = $0 { true } else { false } }.count == 1)
                #expect(all.filter { refusal($0) == "order_already_open" }.count == 1)
            }
        }
    }

    // MARK: Expiry and cancel

    @Test(arguments: TestBackend.allCases) func anExpiredOrder_isNotOpen_andMakesRoomForANewOne(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let now = Date(timeIntervalSince1970: 1_764_600_000)
            let first = try await created(order(database, "coins100", at: now, lifetime: .seconds(60)))
            #expect(refusal(try await order(database, "coins100", at: now + 59)) == "order_already_open")
            #expect(try await OrderRepository(database).order(id: first.orderID, now: now + 60)?.status == .expired)
            guard
                case .notOpen(let expired) = try await OrderRepository(database).cancelOrder(
                    id: first.orderID, accountID: nil, reason: nil, now: now + 61)
            else {
                Issue.record("an expired order cancelled")
                return
            }
            #expect(expired.status == .expired)
            #expect(try await created(order(database, "coins100", at: now + 60)).status == .open)
        }
    }

    @Test(arguments: TestBackend.allCases) func cancel_closesAnOpenOrderOnce_andOnlyForItsAccount(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let orders = OrderRepository(database)
            let now = Date(timeIntervalSince1970: 1_764_600_000)
            let open = try await created(order(database, "coins100", at: now))
            #expect(
                try await orders.cancelOrder(id: open.orderID, accountID: "a2", reason: nil, now: now)
                    == .otherAccount)
            guard
                case .cancelled(let cancelled) = try await orders.cancelOrder(
                    id: open.orderID, accountID: "a1", reason: "purchase failed", now: now + 1)
            else {
                Issue.record("not cancelled")
                return
            }
            #expect(cancelled.status == .cancelled && cancelled.closeReason == "purchase failed")
            guard
                case .notOpen = try await orders.cancelOrder(
                    id: open.orderID, accountID: nil, reason: nil, now: now + 2)
            else {
                Issue.record("cancelled twice")
                return
            }
            #expect(try await orders.cancelOrder(id: "nope", accountID: nil, reason: nil, now: now) == .notFound)
            #expect(try await created(order(database, "coins100", at: now + 3)).status == .open)
        }
    }

    // MARK: Bad input

    @Test(arguments: TestBackend.allCases) func unknownProducts_andOtherAccountsTokens_areRefused_andChangeNothing(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let now = Date(timeIntervalSince1970: 1_764_600_000)
            #expect(try await order(database, "no_such_product", at: now) == .unknownProduct)
            let mine = try await created(order(database, "coins100", account: "a1", at: now))
            #expect(
                try await order(database, "daily_gems", account: "a2", at: now, token: mine.appAccountToken)
                    == .tokenOfAnotherAccount)
            #expect(
                try await OrderRepository(database).offers(accountID: "a2", catalog: Self.catalog, now: now).allSatisfy
                {
                    $0.openOrderID == nil
                })
            #expect(try await LedgerRepository(database).account(id: "a2") == nil, "a refused order creates no account")
            // A refusal by a rule leaves no trace either, not even the token it named.
            let token = "0f8fad5b-d9cb-469f-a165-70867728950e"
            #expect(
                refusal(try await order(database, "winter_pack", account: "a3", at: Self.saleUntil, token: token))
                    == "sale_ended")
            #expect(try await LedgerRepository(database).account(id: "a3") == nil)
            #expect(
                try await created(order(database, "coins100", account: "a4", at: now, token: token)).appAccountToken
                    == token)
            // The same account's own token is reused.
            #expect(
                try await created(order(database, "daily_gems", account: "a1", at: now)).appAccountToken
                    == mine.appAccountToken)
        }
    }

    /// Pays `order` with a verdict for a receipt naming it.
    func pay(
        _ database: any SQLDatabase, _ order: OrderDetails, transaction: String, appleProductID: String? = nil,
        at now: Date
    ) async throws {
        let receiptID = "r-\(transaction)"
        try await database.acceptNew(
            [Fixture.receipt(receiptID, account: order.accountID, orderID: order.orderID)], now: now)
        let apple = appleProductID ?? Self.catalog.product(order.productID)!.appleProductID
        let results = try await SettlementRepository(database).apply(
            [Fixture.valid(receiptID, account: order.accountID, [Fixture.purchase(transaction, product: apple)])],
            catalog: Self.catalog, now: now)
        guard results == [VerdictResult.applied(receiptID: receiptID, status: .credited, reason: nil)] else {
            throw RuleTestError("payment not credited: \(results)")
        }
    }
}

struct RuleTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
