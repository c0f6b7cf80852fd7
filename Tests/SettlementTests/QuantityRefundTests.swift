import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// Google's quantity-based partial refunds: `k` of a purchase's `n` units refunded take back
/// k/n of what it credited (rounded down, whatever n: 1/3 is no whole number of milliunits),
/// and the units still owned keep their entitlement.
@Suite struct QuantityRefundTests {
    typealias F = EngineFixture
    static let cause = F.notice("n1", uuid: "U1")

    struct UnitCase: Sendable, CustomTestStringConvertible {
        var units: Int
        var of: Int
        var credited: Int
        var debit: Int
        var testDescription: String { "\(units) of \(of) units of \(credited) refunded: \(debit) taken back" }
    }

    static let unitCases: [UnitCase] = [
        UnitCase(units: 2, of: 5, credited: 500, debit: 200),
        UnitCase(units: 1, of: 3, credited: 300, debit: 100),
        // 1/3 of 100 is no whole coin: the player keeps the fraction.
        UnitCase(units: 1, of: 3, credited: 100, debit: 33),
        UnitCase(units: 2, of: 3, credited: 100, debit: 66),
        // A first purchase's bonus is part of the purchase entry: its share goes with the units.
        UnitCase(units: 1, of: 4, credited: 45, debit: 11),
        UnitCase(units: 5, of: 5, credited: 500, debit: 500),
        UnitCase(units: 6_999, of: 7_000, credited: Int.max, debit: 9_222_054_412_278_082_267),
    ]

    @Test(arguments: unitCases)
    func someUnitsRefunded_takeBackTheirShare_ofThePurchaseEntry(_ row: UnitCase) throws {
        // Given a purchase of `of` units credited to a1 by r0, still held
        let state = SettlementState(
            known: F.known("t1", purchase: Money(currency: "coins", amount: row.credited)),
            accounts: ["a1": F.payer(["coins": row.credited])])

        // When Google voids `units` of them
        var transaction = F.purchase("t1", quantity: row.of, cancelled: F.at(days: 0.5))
        transaction.refundedQuantity = row.units
        let decision = try F.decide(.takenBack(transaction, kind: .refund, cause: Self.cause), state)

        // Then a1 is debited that share, once, and hears of it
        #expect(
            decision.effects == [
                F.posting("a1", "coins", -row.debit, .refund, cause: Self.cause, transaction: "t1"),
                .updateTransaction(transactionID: "t1", state: .refunded, cancellationDate: F.at(days: 0.5)),
                F.transactionWebhook(
                    .purchaseRefunded, to: "a1", receipt: "r0", notification: "n1", transaction: "t1",
                    currency: "coins", amount: -row.debit, uuid: "U1", balance: row.credited - row.debit,
                    writtenOff: 0),
            ])
    }

    @Test(arguments: [1, 2, 3, 7, 100, 7_000], [Int.max, 1_000_000_007, 99_999, 10, 1])
    func theUnitShare_isTheExactFloor_withoutOverflow(_ quantity: Int, _ amount: Int) {
        for units in Set([1, quantity / 2, max(1, quantity - 1), quantity]) where units >= 1 {
            // Given the exact 128-bit amount × units / quantity
            let wide = amount.multipliedFullWidth(by: units)
            let exact = quantity.dividingFullWidth((high: wide.high, low: wide.low)).quotient
            // Then the engine's share is that floor, never more than the amount
            #expect(SettlementEngine.share(of: amount, units, per: quantity) == exact)
        }
    }

    @Test func unitsStillOwned_keepTheEntitlement_andAllUnitsEndIt() throws {
        // Given vip (a non-consumable bought twice, say) credited to a1, held for 30 days
        let state = SettlementState(
            known: F.knownVIP(), bound: F.knownVIP(), accounts: ["a1": F.holder(vipUntil: F.at(days: 30))])
        var some = F.purchase("s1", product: F.vip, quantity: 2, cancelled: F.at(days: 0.5))
        some.refundedQuantity = 1

        // When one of two units is refunded / Then vip is untouched
        let partial = try F.decide(.takenBack(some, kind: .refund, cause: Self.cause), state)
        #expect(!partial.effects.contains { if case .setEntitlement = $0 { true } else { false } })

        // When both are / Then vip ends at the cancellation
        var all = some
        all.refundedQuantity = 2
        let whole = try F.decide(.takenBack(all, kind: .refund, cause: Self.cause), state)
        #expect(
            whole.effects.first
                == .setEntitlement(
                    accountID: "a1", name: "vip",
                    end: EntitlementEnd(expiresAt: F.at(days: 0.5), originalTransactionID: "s1")))
    }

    @Test(arguments: [0, -1, 4])
    func aRefundedQuantity_outsideThePurchase_isRefused(_ units: Int) {
        var transaction = F.purchase("t1", quantity: 3, cancelled: F.at(days: 0.5))
        transaction.refundedQuantity = units
        let refusal = F.refusal(
            .takenBack(transaction, kind: .refund, cause: Self.cause), SettlementState(known: F.known("t1")))
        #expect(refusal?.description.contains("units refunded") == true)
    }
}
