import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// What the revenue ledger keeps beside the price: the tax a store reports apart, and a
/// subscription period's end and monthly value; and the entries the back-fill writes for
/// what was credited before the ledger began. Pure: no database.
@Suite struct RevenueTaxAndBackfillTests {
    typealias F = EngineFixture
    typealias R = RevenueDecisionTests

    @Test func googlesReportedTaxIsKeptAndARefundOfTwoOfFiveGivesBackItsShare() throws {
        // €4.95 for five units, €0.79 of it VAT, as Google's order says in micros.
        var bought = F.purchase("t1", quantity: 5)
        (bought.priceMicros, bought.currency, bought.taxMicros) = (4_950_000, "EUR", 790_000)
        let paid = try #require(
            R.revenue(try F.decide(.transactionVerified(bought, source: F.receipt()), engine: R.engine)).first)
        #expect(paid.gross == 495 && paid.tax == 79)
        var known = F.known("t1", purchase: Money(currency: "coins", amount: 500), quantity: 5)
        known.add(revenue: paid)
        var refund = F.purchase("t1", quantity: 5, cancelled: F.t0)
        refund.refundedQuantity = 2
        let back = R.revenue(
            try F.decide(
                .takenBack(refund, kind: .refund, cause: F.notice()),
                SettlementState(known: known, accounts: ["a1": AccountState(exists: true, balances: ["coins": 500])]),
                engine: R.engine))
        // Two fifths of 79 is 31.6: 31, rounded toward zero as proceeds are.
        #expect(back.map(\.gross) == [-198] && back.map(\.tax) == [-31])
    }

    @Test func aStoreThatReportsNoTaxLeavesItUnknownNotZero() throws {
        let paid = try #require(
            R.revenue(
                try F.decide(
                    .transactionVerified(R.bought("t1", milli: 990, currency: "USD"), source: F.receipt()),
                    engine: R.engine)
            ).first)
        #expect(paid.tax == nil)
        // More tax than the price is not believed.
        var odd = R.bought("t2", milli: 990, currency: "USD")
        odd.taxMicros = 2_000_000
        #expect(SettlementEngine.tax(of: odd, currency: "USD", gross: 99) == nil)
    }

    @Test func aSubscriptionPeriodCarriesItsEndAndItsValueAMonth() throws {
        var period = F.purchase("s1", product: F.vip, expires: F.t0.addingTimeInterval(7 * 86_400))
        (period.priceMicros, period.currency) = (2_990_000, "USD")
        let paid = try #require(
            R.revenue(try F.decide(.transactionVerified(period, source: F.receipt()), engine: F.engine)).first)
        #expect(paid.subscription && paid.periodEnds == period.expiresDate)
        // $2.99 a week is $12.99 a month (30.44 days), rounded toward zero: 299 × 2,629,746 / 604,800.
        #expect(paid.monthlyRecurring == 1300)
        #expect(RevenueEntry.monthly(299, from: F.t0, to: F.t0) == nil)
    }

    @Test func theBackfillPricesAPaymentAndTakesAllOfARefundedOneBack() throws {
        var signed = F.purchase("t1", quantity: 2)
        (signed.priceMicros, signed.currency, signed.country) = (1_980_000, "USD", "USA")
        let cause = Cause(app: "", receiptID: "r1", store: "apple")
        let credited = R.engine.backfilledRevenue(
            signed, catalogProductID: F.coins, state: .credited, accountID: "a1", cause: cause,
            subscriptionSince: nil)
        #expect(credited.map(\.gross) == [198] && credited.map(\.estimated) == [false])
        let refunded = R.engine.backfilledRevenue(
            signed, catalogProductID: F.coins, state: .refunded, accountID: "a1", cause: cause,
            subscriptionSince: nil)
        #expect(refunded.map(\.kind) == [.purchase, .refund] && refunded.map(\.gross) == [198, -198])
        #expect(refunded.map(\.proceeds) == [138, -138] && refunded.map(\.step) == [0, 1])
        // Without the store's price, the catalog's, marked estimated; with neither, nothing.
        let estimated = R.engine.backfilledRevenue(
            F.purchase("t2"), catalogProductID: R.priced, state: .revoked, accountID: "a1", cause: cause,
            subscriptionSince: nil)
        #expect(estimated.map(\.kind) == [.purchase, .revocation] && estimated.allSatisfy(\.estimated))
        #expect(estimated.map(\.gross) == [99, -99] && estimated.map(\.currency) == ["USD", "USD"])
        #expect(
            R.engine.backfilledRevenue(
                F.purchase("t3"), catalogProductID: F.coins, state: .credited, accountID: "a1", cause: cause,
                subscriptionSince: nil
            ).isEmpty)
        #expect(
            R.engine.backfilledRevenue(
                signed, catalogProductID: "gone", state: .credited, accountID: "a1", cause: cause,
                subscriptionSince: nil
            ).isEmpty)
    }

    @Test func aBackfilledRenewalAfterAYearIsAtTheReducedRate() throws {
        let year = F.t0.addingTimeInterval(400 * 86_400)
        var renewal = F.purchase("s2", product: F.vip, original: "s1", expires: year.addingTimeInterval(30 * 86_400))
        renewal.purchaseDate = year
        (renewal.priceMicros, renewal.currency) = (9_990_000, "USD")
        let entries = F.engine.backfilledRevenue(
            renewal, catalogProductID: F.vip, state: .credited, accountID: "a1",
            cause: Cause(app: "", notificationID: "n1", store: "apple"), subscriptionSince: F.t0)
        #expect(entries.map(\.kind) == [.renewal] && entries.map(\.commissionBasisPoints) == [1500])
        #expect(entries.map(\.proceeds) == [849])
    }
}
