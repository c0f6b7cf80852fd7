import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// Who a verified purchase credits: each binding path, conflicts, mismatches, lost orders.
@Suite struct BindingTests {
    static let now = Date(timeIntervalSince1970: 1_764_600_000)
    static let catalog = Catalog(products: [
        Product(productID: "com.example.coins100", kind: .consumable, grant: Grant(currency: "coins", amount: 100)),
        Product(productID: "com.example.gems10", kind: .consumable, grant: Grant(currency: "gems", amount: 10)),
        Product(productID: "com.example.vip.monthly", kind: .autoRenewable, entitlement: "vip"),
        // Two products sold through one Apple price tier.
        Product(
            productID: "starter_pack", kind: .consumable, appleProductID: "com.example.tier5",
            grant: Grant(currency: "gems", amount: 50), tierDefault: true),
        Product(
            productID: "winter_pack", kind: .consumable, appleProductID: "com.example.tier5",
            grant: Grant(currency: "coins", amount: 900)),
    ])

    func order(_ database: any SQLDatabase, _ product: String, account: String) async throws -> OrderDetails {
        guard
            case .created(let order) = try await OrderRepository(database).createOrder(
                NewOrder(accountID: account, productID: product), catalog: Self.catalog, lifetime: .seconds(600),
                now: Self.now)
        else { throw RuleTestError("no order") }
        return order
    }

    func submit(
        _ database: any SQLDatabase, _ receiptID: String, account: String, order: String? = nil,
        _ transactions: [VerifiedTransaction]
    ) async throws -> [VerdictResult] {
        try await database.acceptNew([Fixture.receipt(receiptID, account: account, orderID: order)], now: Self.now)
        return try await SettlementRepository(database).apply(
            [Fixture.valid(receiptID, account: account, transactions)], catalog: Self.catalog, now: Self.now)
    }

    func balances(_ database: any SQLDatabase, _ account: String) async throws -> [String: Int] {
        try await LedgerRepository(database).account(id: account)?.balances ?? [:]
    }

    @Test(arguments: TestBackend.allCases) func path1_theOrdersAccount_evenWhenAnotherAccountSubmits(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let order = try await order(database, "com.example.coins100", account: "alice")
            _ = try await submit(database, "r1", account: "bob", order: order.orderID, [Fixture.purchase("t1")])
            #expect(try await balances(database, "alice") == ["coins": 100])
            #expect(try await balances(database, "bob") == [:])
            #expect(try await OrderRepository(database).order(id: order.orderID, now: Self.now)?.status == .fulfilled)
            let conflict = try #require(try await OrderRepository(database).bindingConflicts().first)
            #expect(conflict.claimantAccountID == "bob" && conflict.creditedAccountID == "alice")
            #expect(conflict.binding == "order")
        }
    }

    @Test(arguments: TestBackend.allCases) func path2_theAccountBehindTheAppAccountToken(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let token = try await order(database, "com.example.gems10", account: "alice").appAccountToken
            // A purchase of another product, no order named, sent by bob, carrying alice's token.
            _ = try await submit(database, "r1", account: "bob", [Fixture.purchase("t1", token: token.uppercased())])
            #expect(try await balances(database, "alice") == ["coins": 100])
            #expect(try await balances(database, "bob") == [:])
            #expect(try await OrderRepository(database).bindingConflicts().first?.binding == "app_account_token")
        }
    }

    @Test(arguments: TestBackend.allCases) func path3_aRenewalGoesToTheAccountThatFirstBought_notToALaterClaimant(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let vip = "com.example.vip.monthly"
            _ = try await submit(
                database, "r1", account: "alice",
                [Fixture.purchase("t1", product: vip, expires: Self.now + 86_400)])
            // Bob sends a receipt with the renewal, even naming an order of his own.
            let bobsOrder = try await order(database, "com.example.vip.monthly", account: "bob")
            let results = try await submit(
                database, "r2", account: "bob", order: bobsOrder.orderID,
                [Fixture.purchase("t2", product: vip, expires: Self.now + 2 * 86_400, original: "t1")])

            #expect(results == [.applied(receiptID: "r2", status: .rejected, reason: "bound_to_another_account")])
            #expect(
                try await LedgerRepository(database).account(id: "alice")?.entitlements.first?.expiresAt == Self.now + 2
                    * 86_400)
            #expect(try await LedgerRepository(database).account(id: "bob")?.entitlements.isEmpty ?? true)
            // The conflict is recorded; bob's order stays open (it paid nothing).
            let conflict = try #require(try await OrderRepository(database).bindingConflicts().first)
            #expect(conflict.claimantAccountID == "bob" && conflict.creditedAccountID == "alice")
            #expect(conflict.binding == "original_transaction")
            #expect(try await OrderRepository(database).order(id: bobsOrder.orderID, now: Self.now)?.status == .open)
            #expect(
                try await database.allWebhooks().contains {
                    $0.type == .subscriptionRenewed && $0.accountID == "alice"
                })
        }
    }

    @Test(arguments: TestBackend.allCases) func path4_theSubmittingAccount_whenNothingElseBinds(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            // An unknown token binds nothing; no order: the submitter.
            _ = try await submit(
                database, "r1", account: "carol",
                [Fixture.purchase("t1", token: "8a1c1f4e-3b1e-4a35-9b7c-1f0c5e8d9a21")])
            #expect(try await balances(database, "carol") == ["coins": 100])
            #expect(try await OrderRepository(database).bindingConflicts().isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func aMismatchedProduct_creditsApplesProduct_andMarksTheOrder(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let order = try await order(database, "com.example.gems10", account: "alice")
            _ = try await submit(database, "r1", account: "alice", order: order.orderID, [Fixture.purchase("t1")])

            #expect(try await balances(database, "alice") == ["coins": 100])
            let closed = try #require(try await OrderRepository(database).order(id: order.orderID, now: Self.now))
            #expect(closed.status == .mismatched)
            #expect(closed.creditedProductID == "com.example.coins100")
            let webhook = try #require(
                try await database.allWebhooks().first { $0.type == .receiptCredited })
            let data = try #require(try Fixture.json(webhook.body)["data"] as? [String: Any])
            let said = try #require(data["order"] as? [String: Any])
            #expect(said["status"] as? String == "mismatched")
            #expect(said["mismatched"] as? Bool == true)
            #expect(said["product_id"] as? String == "com.example.gems10")
            #expect(said["credited_product_id"] as? String == "com.example.coins100")
        }
    }

    @Test(arguments: TestBackend.allCases) func aPriceTier_creditsTheOrderedProduct_andTheDefaultWithoutAnOrder(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let winter = try await order(database, "winter_pack", account: "alice")
            _ = try await submit(
                database, "r1", account: "alice", order: winter.orderID,
                [Fixture.purchase("t1", product: "com.example.tier5")])
            #expect(try await balances(database, "alice") == ["coins": 900])
            #expect(try await OrderRepository(database).order(id: winter.orderID, now: Self.now)?.status == .fulfilled)

            // The same tier paid with no order (lost): the tier's default product.
            _ = try await submit(
                database, "r2", account: "alice", [Fixture.purchase("t2", product: "com.example.tier5")])
            #expect(try await balances(database, "alice") == ["coins": 900, "gems": 50])
        }
    }

    @Test(arguments: TestBackend.allCases) func aPaymentWithNoOrder_isStillCredited_andOrdersThatExpiredStillBind(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            _ = try await submit(database, "r1", account: "dave", [Fixture.purchase("t1")])
            #expect(try await balances(database, "dave") == ["coins": 100])

            // An order that expired (or was cancelled) before Apple's answer: the payment still
            // credits its account, and closes it as paid.
            let late = try await order(database, "com.example.gems10", account: "erin")
            _ = try await OrderRepository(database).cancelOrder(
                id: late.orderID, accountID: nil, reason: "timed out on device", now: Self.now)
            _ = try await submit(
                database, "r2", account: "erin", order: late.orderID,
                [Fixture.purchase("t2", product: "com.example.gems10")])
            #expect(try await balances(database, "erin") == ["gems": 10])
            #expect(try await OrderRepository(database).order(id: late.orderID, now: Self.now)?.status == .fulfilled)
        }
    }

    @Test(arguments: TestBackend.allCases) func anOrderPaysOnce_aSecondPurchaseNamingItBindsByTheOtherRules(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            let order = try await order(database, "com.example.coins100", account: "alice")
            _ = try await submit(database, "r1", account: "alice", order: order.orderID, [Fixture.purchase("t1")])
            _ = try await submit(database, "r2", account: "bob", order: order.orderID, [Fixture.purchase("t2")])
            #expect(try await balances(database, "alice") == ["coins": 100])
            #expect(try await balances(database, "bob") == ["coins": 100])
            #expect(try await OrderRepository(database).order(id: order.orderID, now: Self.now)?.transactionID == "t1")
        }
    }
}

@Suite struct NotificationBindingTests {
    @Test(arguments: TestBackend.allCases) func aSubscriptionWhoseReceiptNeverCame_bindsThroughItsAppAccountToken(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { (database: any SQLDatabase) async throws in
            // Given an order (and so a token) for alice, and a purchase whose receipt is lost
            guard
                case .created(let order) = try await OrderRepository(database).createOrder(
                    NewOrder(accountID: "alice", productID: "com.example.vip.monthly"), catalog: BindingTests.catalog,
                    lifetime: .seconds(600), now: BindingTests.now)
            else { throw RuleTestError("no order") }
            let end = BindingTests.now + 30 * 86_400
            var transaction = Fixture.purchase("s1", product: "com.example.vip.monthly", expires: end)
            transaction.appAccountToken = order.appAccountToken

            // When Apple's SUBSCRIBED notification arrives
            try await database.acceptNewNotifications(["n1"])
            let results = try await SettlementRepository(database).apply(
                [Fixture.notified("n1", "SUBSCRIBED", uuid: "U1", transaction)], catalog: BindingTests.catalog,
                now: BindingTests.now)

            // Then alice holds the subscription, and its renewals will follow it
            #expect(results == [.notificationApplied(notificationID: "n1", status: .applied, reason: nil)])
            #expect(try await LedgerRepository(database).account(id: "alice")?.entitlements.first?.expiresAt == end)
        }
    }
}
