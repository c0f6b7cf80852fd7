import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// A transaction taken back in steps: each refund carries the share refunded so far (Stripe's
/// `amount_refunded` of `amount`, Google's voided units of n), and takes that share less what
/// earlier steps took; never the same step twice, never more than was credited.
@Suite struct StepRefundTests {
    typealias F = EngineFixture
    static let cause = F.notice("n2", uuid: "U2")

    struct StepCase: Sendable, CustomTestStringConvertible {
        var name: String
        var taken: Int
        var steps: Int
        var share: Int?
        var kind: TakeBackKind = .refund
        var debit: Int?
        var testDescription: String { name }
    }

    static let stepCases: [StepCase] = [
        StepCase(name: "30 % after nothing takes 30", taken: 0, steps: 0, share: 30_000, debit: 30),
        StepCase(name: "80 % after 30 % takes 50 more", taken: 30, steps: 1, share: 80_000, debit: 50),
        StepCase(name: "a full refund after 80 % takes the last 20", taken: 80, steps: 2, share: nil, debit: 20),
        StepCase(
            name: "a revocation after 30 % takes the rest", taken: 30, steps: 1, share: nil, kind: .revoke, debit: 70),
        StepCase(name: "30 % again after 30 % (a redelivery) takes nothing", taken: 30, steps: 1, share: 30_000),
        StepCase(name: "30 % after 80 % (an older event) takes nothing", taken: 80, steps: 2, share: 30_000),
        StepCase(name: "a full refund after all of it takes nothing", taken: 100, steps: 2, share: nil),
        // Rounded down at each step from the cumulative share: steps add up to the share's floor.
        StepCase(name: "66.667 % after 33.333 % takes 33 more", taken: 33, steps: 1, share: 66_667, debit: 33),
    ]

    @Test(arguments: stepCases)
    func aRefundStep_takesItsShare_lessWhatEarlierStepsTook(_ row: StepCase) throws {
        // Given 100 coins credited to a1 by r0, `taken` of them already taken back in `steps` steps
        let known = F.known(
            "t1", state: row.steps == 0 ? .credited : .refunded,
            debit: row.steps == 0 ? nil : Money(currency: "coins", amount: -row.taken), steps: row.steps)
        let state = SettlementState(known: known, accounts: ["a1": F.payer(["coins": 500])])

        // When the store reports the refund at `share` so far
        let transaction = F.purchase("t1", cancelled: F.at(days: 0.5), share: row.share)
        let decision = try F.decide(.takenBack(transaction, kind: row.kind, cause: Self.cause), state)

        guard let debit = row.debit else {
            // Then a share not beyond what was taken moves nothing
            #expect(decision.effects == [])
            #expect(decision.reason == "already_refunded")
            return
        }
        // Then the difference is debited as the next step, and a1 hears of this step's amount
        #expect(
            decision.effects == [
                F.posting(
                    "a1", "coins", -debit, row.kind.ledgerKind, cause: Self.cause, transaction: "t1",
                    step: row.steps + 1),
                .updateTransaction(transactionID: "t1", state: row.kind.state, cancellationDate: F.at(days: 0.5)),
                F.transactionWebhook(
                    .purchaseRefunded, to: "a1", receipt: "r0", notification: "n2", transaction: "t1",
                    currency: "coins", amount: -debit, uuid: "U2", balance: 500 - debit, writtenOff: 0),
            ])
        #expect(decision.reason == nil)
    }

    @Test func googleUnits_twoOfFiveThenThreeOfFive_takeTwoUnitsThenOne() throws {
        // Given 5 units of 100 coins each credited to a1
        var known = F.known("t1", purchase: Money(currency: "coins", amount: 500), quantity: 5)
        var balance = 500
        var taken: [Int] = []
        for voided in [2, 3, 3] {
            // When Google reports `voided` of 5 units voided so far
            var transaction = F.purchase("t1", quantity: 5, cancelled: F.at(days: 0.5))
            transaction.refundedQuantity = voided
            let state = SettlementState(known: known, accounts: ["a1": F.payer(["coins": balance])])
            let decision = try F.decide(.takenBack(transaction, kind: .refund, cause: Self.cause), state)
            for case .post(let posting) in decision.effects {
                taken.append(-posting.amount)
                known.add(posting.kind, Money(currency: posting.currency, amount: posting.amount))
                balance += posting.amount
                #expect(posting.step == known.debitSteps)
            }
            known.state = .refunded
        }
        // Then two units go, then one, and the redelivered count takes nothing
        #expect(taken == [200, 100])
        #expect(balance == 200)
    }

    @Test func aZeroShareRefund_thenAPartialOne_takesThePartialOne() throws {
        // Given t1 refunded at 0 % (refunded, nothing debited)
        let state = SettlementState(
            known: F.known("t1", state: .refunded), accounts: ["a1": F.payer(["coins": 100])])

        // When it is refunded to 30 %
        let decision = try F.decide(
            .takenBack(F.purchase("t1", cancelled: F.t0, share: 30_000), kind: .refund, cause: Self.cause), state)

        // Then 30 are taken as its first debit
        #expect(decision.effects.first == F.posting("a1", "coins", -30, .refund, cause: Self.cause, transaction: "t1"))
    }

    @Test func aSecondStepTheBalanceCannotPay_writesOffItsShortfall_atItsStep() throws {
        // Given 30 of 100 taken back, and a1 down to 20 coins, under `clamp`
        let engine = SettlementEngine(
            catalog: Catalog(products: F.catalog.products, negativeBalance: .clamp))
        let state = SettlementState(
            known: F.known(state: .refunded, debit: Money(currency: "coins", amount: -30)),
            accounts: ["a1": F.payer(["coins": 20])])

        // When the refund reaches 80 %
        let decision = try F.decide(
            .takenBack(F.purchase("t1", cancelled: F.t0, share: 80_000), kind: .refund, cause: Self.cause), state,
            engine: engine)

        // Then the step's 50 is debited whole, 30 of it written off, both as step 2
        #expect(
            Array(decision.effects.prefix(2)) == [
                F.posting("a1", "coins", -50, .refund, cause: Self.cause, transaction: "t1", step: 2),
                F.posting("a1", "coins", 30, .writeOff, cause: Self.cause, transaction: "t1", step: 2),
            ])
    }

    @Test func aReversalAfterTwoSteps_givesBackWhatBothTook_lessWriteOffs() throws {
        // Given 80 taken in two steps, 10 of it written off
        let state = SettlementState(
            known: F.known(
                state: .refunded, debit: Money(currency: "coins", amount: -80),
                writtenOff: Money(currency: "coins", amount: 10), steps: 2))

        // When the refund is reversed
        let decision = try F.decide(.refundReversed(F.purchase("t1"), cause: Self.cause), state)

        // Then 70 come back, once
        #expect(
            decision.effects.first
                == F.posting("a1", "coins", 70, .refundReversal, cause: Self.cause, transaction: "t1"))
    }

    @Test func aRefundAfterAReversal_takesNothing() throws {
        // Given 30 taken, then given back (a dispute won)
        let state = SettlementState(
            known: F.known(debit: Money(currency: "coins", amount: -30), reversed: true),
            accounts: ["a1": F.payer(["coins": 100])])

        // When a refund to 80 % arrives
        let decision = try F.decide(
            .takenBack(F.purchase("t1", cancelled: F.t0, share: 80_000), kind: .refund, cause: Self.cause), state)

        // Then the reversal stands: nothing moves
        #expect(decision.effects == [])
        #expect(decision.reason == "already_refunded")
    }
}
