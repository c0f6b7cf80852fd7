import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// How a settled receipt ends, and the webhook that tells its backend.
@Suite struct ReceiptConclusionTests {
    typealias F = EngineFixture

    // MARK: Rejection reasons

    struct ReasonCase: Sendable, CustomTestStringConvertible {
        var outcomes: [TransactionOutcome]
        var reason: String
        var testDescription: String { "\(outcomes.map(\.rawValue)) → \(reason)" }
    }

    static let reasonCases: [ReasonCase] = [
        ReasonCase(outcomes: [], reason: "no_transactions"),
        ReasonCase(outcomes: [.credited], reason: "no_transactions"),
        ReasonCase(outcomes: [.alreadyCredited], reason: "already_credited"),
        ReasonCase(outcomes: [.alreadyCredited, .alreadyCredited], reason: "already_credited"),
        ReasonCase(outcomes: [.boundToAnotherAccount], reason: "bound_to_another_account"),
        ReasonCase(outcomes: [.alreadyCredited, .boundToAnotherAccount], reason: "bound_to_another_account"),
        ReasonCase(outcomes: [.refunded], reason: "refunded"),
        ReasonCase(outcomes: [.boundToAnotherAccount, .refunded, .alreadyCredited], reason: "refunded"),
        ReasonCase(outcomes: [.unknownProduct], reason: "unknown_product"),
        ReasonCase(
            outcomes: [.alreadyCredited, .refunded, .boundToAnotherAccount, .unknownProduct], reason: "unknown_product"),
        ReasonCase(outcomes: [.unknownProduct, .refunded], reason: "unknown_product"),
        ReasonCase(outcomes: [.credited, .alreadyCredited], reason: "already_credited"),
    ]

    @Test(arguments: reasonCases)
    func aReceiptThatCreditedNothing_isRejectedForTheReasonThatMostNeedsAPerson(_ row: ReasonCase) {
        // Given the outcomes of its transactions, in this order and reversed
        // When the rejection reason is chosen
        // Then unknown_product > refunded > bound_to_another_account > already_credited > no_transactions
        #expect(ReceiptConclusion.rejectionReason(row.outcomes) == row.reason)
        #expect(ReceiptConclusion.rejectionReason(row.outcomes.reversed()) == row.reason)
    }

    // MARK: Concluding a settled receipt

    static func carried(_ id: String, _ outcome: TransactionOutcome) -> CarriedTransaction {
        CarriedTransaction(transactionID: id, productID: F.coins, outcome: outcome)
    }

    /// Decisions as the engine makes them, for one receipt `r1` of a1.
    static func decisions() throws -> (
        credited: Decision, toA2: Decision, known: Decision, unknown: Decision, ordered: Decision, bound: Decision
    ) {
        let known = SettlementState(known: F.known("t9"))
        let order = OrderClaim(
            orderID: "o1", accountID: "a1", productID: F.starter, product: F.catalog.product(F.starter))
        return (
            try F.decide(.transactionVerified(F.purchase("t1"), source: F.receipt())),
            try F.decide(
                .transactionVerified(F.purchase("t2"), source: F.receipt()), SettlementState(tokenOwner: "a2")),
            try F.decide(.transactionVerified(F.purchase("t9"), source: F.receipt()), known),
            try F.decide(.transactionVerified(F.purchase("t3", product: "com.example.x"), source: F.receipt())),
            try F.decide(.transactionVerified(F.purchase("t4"), source: F.receipt(order: order))),
            try F.decide(
                .transactionVerified(F.purchase("s2", product: F.vip, original: "s1"), source: F.receipt()),
                SettlementState(bound: F.knownVIP(account: "a2")))
        )
    }

    @Test func aReceiptWithACredit_isCreditedToTheFirstAccountCredited_withItsBalances() throws {
        // Given a receipt whose first credited transaction went to a2 (token), then one to a1
        let d = try Self.decisions()
        let carried = [
            Self.carried("t9", .alreadyCredited), Self.carried("t2", .credited), Self.carried("t1", .credited),
        ]

        // When it is concluded
        let conclusion = ReceiptConclusion(
            receiptID: "r1", claimant: "a1", attempts: 2, carried: carried, decisions: [d.known, d.toA2, d.credited],
            balances: ["coins": 200])

        // Then it is credited to a2, and a2's backend gets receipt.credited with every transaction and its balances
        #expect(conclusion.creditedAccountID == "a2")
        #expect(conclusion.reason == nil)
        #expect(
            conclusion.webhook
                == Webhook(
                    type: .receiptCredited, accountID: "a2", receiptID: "r1",
                    data: .credited(CreditedData(transactions: carried, balances: ["coins": 200], order: nil))))
    }

    @Test func aCreditedReceiptThatPaidAnOrder_reportsTheOrder() throws {
        // Given a receipt whose purchase paid order o1 (starter ordered, coins paid)
        let d = try Self.decisions()
        let carried = [Self.carried("t1", .credited), Self.carried("t4", .credited)]

        // When it is concluded
        let conclusion = ReceiptConclusion(
            receiptID: "r1", claimant: "a1", attempts: 1, carried: carried,
            decisions: [d.credited, d.ordered, d.known],
            balances: ["coins": 200])

        // Then the webhook reports the order as mismatched
        let order = OrderEventData(
            orderID: "o1", status: "mismatched", productID: F.starter, creditedProductID: F.coins, mismatched: true)
        #expect(d.ordered.order == order)
        #expect(conclusion.creditedAccountID == "a1")
        #expect(
            conclusion.webhook.data
                == .credited(CreditedData(transactions: carried, balances: ["coins": 200], order: order)))
    }

    struct RejectedCase: Sendable, CustomTestStringConvertible {
        var name: String
        var pick: [Int]
        var outcomes: [TransactionOutcome]
        var reason: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        RejectedCase(name: "nothing carried", pick: [], outcomes: [], reason: "no_transactions"),
        RejectedCase(name: "seen before", pick: [0], outcomes: [.alreadyCredited], reason: "already_credited"),
        RejectedCase(
            name: "unknown product", pick: [0, 1], outcomes: [.alreadyCredited, .unknownProduct],
            reason: "unknown_product"),
        RejectedCase(
            name: "renewal of another's", pick: [2, 0], outcomes: [.boundToAnotherAccount, .alreadyCredited],
            reason: "bound_to_another_account"),
    ])
    func aReceiptWithoutACredit_isRejected_toItsClaimant(_ row: RejectedCase) throws {
        // Given decisions none of which credited this receipt's account
        let d = try Self.decisions()
        let all = [d.known, d.unknown, d.bound]
        let carried = zip(row.pick, row.outcomes).map { Self.carried("t\($0.0)", $0.1) }

        // When it is concluded after 4 attempts
        let conclusion = ReceiptConclusion(
            receiptID: "r1", claimant: "a1", attempts: 4, carried: carried, decisions: row.pick.map { all[$0] },
            balances: ["coins": 999])

        // Then the claimant's backend hears receipt.rejected with the reason and what became of each transaction
        #expect(conclusion.creditedAccountID == nil)
        #expect(conclusion.reason == row.reason)
        #expect(
            conclusion.webhook
                == Webhook(
                    type: .receiptRejected, accountID: "a1", receiptID: "r1",
                    data: .ended(EndedData(reason: row.reason, attempts: 4, transactions: carried))))
    }

    @Test(arguments: [
        (VerdictStep.Ending.rejected, WebhookType.receiptRejected), (.dead, .receiptDead),
    ])
    func aReceiptEndedUnsettled_toldWithItsEndingsWebhook(_ ending: VerdictStep.Ending, _ type: WebhookType) {
        // Given a receipt that ended without being settled
        // When its webhook is made
        let webhook = ReceiptConclusion.ended(ending, reason: "21003", receiptID: "r1", accountID: "a1", attempts: 5)
        // Then it names the ending, the reason and the attempts, and carries no transactions
        #expect(
            webhook
                == Webhook(
                    type: type, accountID: "a1", receiptID: "r1",
                    data: .ended(EndedData(reason: "21003", attempts: 5, transactions: nil))))
        #expect(webhook.notificationID == nil)
    }
}
