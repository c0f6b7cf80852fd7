import Foundation
import PipelineCore
import Settlement
import Testing

/// The order rules: sale window, daily limit, one open order, first purchase; and which
/// transaction of a receipt pays an order.
@Suite struct OrderRulesTests {
    @Test func rules_atTheirEdges() throws {
        let from = Date(timeIntervalSince1970: 1_000_000)
        let product = Product(
            productID: "p", kind: .consumable, grant: Grant(currency: "c", amount: 1),
            rules: PurchaseRules(sale: SaleWindow(from: from, until: from + 60), dailyLimit: 2))
        #expect(product.refusal(at: from - 1, history: .init()) == .saleNotStarted(from: from))
        #expect(product.refusal(at: from, history: .init()) == nil)
        #expect(product.refusal(at: from + 59, history: .init()) == nil)
        #expect(product.refusal(at: from + 60, history: .init()) == .saleEnded(until: from + 60))
        #expect(product.refusal(at: from, history: .init(ordersToday: 1)) == nil)
        #expect(product.refusal(at: from, history: .init(ordersToday: 2)) == .dailyLimitReached(limit: 2))
        #expect(product.refusal(at: from, history: .init(openOrderID: "o1")) == .orderAlreadyOpen(orderID: "o1"))
    }

    @Test func aLocalDay_followsTheTimeZone() throws {
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let lastSecond = Date(timeIntervalSince1970: 1_764_687_599)  // 2025-12-02 23:59:59 in Tokyo
        let day = PurchaseDay(containing: lastSecond, in: tokyo)
        #expect(day.end == lastSecond + 1)
        #expect(day.start == lastSecond + 1 - 86_400)
        #expect(PurchaseDay(containing: lastSecond + 1, in: tokyo).start == lastSecond + 1)
    }

    @Test func anOrder_isPaidByTheFreshTransactionOfItsProduct_elseByTheFirstFreshOne() {
        let coins = EngineFixture.catalog.product(EngineFixture.coins)
        let candidates = [
            OrderPayment.Candidate(transaction: EngineFixture.purchase("seen"), isFresh: false),
            OrderPayment.Candidate(
                transaction: EngineFixture.purchase("vip", product: EngineFixture.vip), isFresh: true),
            OrderPayment.Candidate(transaction: EngineFixture.purchase("coins"), isFresh: true),
        ]
        // The ordered product wins over the first fresh transaction
        #expect(OrderPayment.payingTransaction(ordered: coins, among: candidates) == "coins")
        // Another product ordered: the first fresh one pays (a mismatch)
        let starter = EngineFixture.catalog.product(EngineFixture.starter)
        #expect(OrderPayment.payingTransaction(ordered: starter, among: candidates) == "vip")
        // Refunded and seen transactions pay nothing
        let refunded = OrderPayment.Candidate(
            transaction: EngineFixture.purchase("r", cancelled: EngineFixture.t0), isFresh: true)
        #expect(OrderPayment.payingTransaction(ordered: coins, among: [candidates[0], refunded]) == nil)
    }
}
