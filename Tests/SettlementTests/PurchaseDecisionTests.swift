import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// A transaction a receipt carried: credited once, with what the catalog grants, and
/// never again; refunded ones are recorded and taken back.
@Suite struct PurchaseDecisionTests {
    typealias F = EngineFixture

    // MARK: New consumables

    struct QuantityCase: Sendable, CustomTestStringConvertible {
        var quantity: Int
        var recorded: Int
        var amount: Int
        var testDescription: String { "quantity \(quantity) credits \(amount)" }
    }

    @Test(arguments: [
        QuantityCase(quantity: 1, recorded: 1, amount: 100),
        QuantityCase(quantity: 2, recorded: 2, amount: 200),
        QuantityCase(quantity: 7, recorded: 7, amount: 700),
        QuantityCase(quantity: 10_000, recorded: 10_000, amount: 1_000_000),
    ])
    func aNewConsumable_creditsGrantTimesQuantity_toTheSubmitter(_ row: QuantityCase) throws {
        // Given a coins purchase (100 coins each) no one has seen, on a receipt of a1
        let transaction = F.purchase("t1", quantity: row.quantity)
        let source = F.receipt("r1", by: "a1")

        // When the engine decides it
        let decision = try F.decide(.transactionVerified(transaction, source: source))

        // Then a1 is opened, the row recorded once, and grant × quantity posted
        var record = F.creditedRecord(transaction, cause: source.cause, account: "a1", binding: .submitter)
        record.quantity = row.recorded
        #expect(
            decision.effects == [
                .openAccount("a1"), .recordTransaction(record),
                F.posting("a1", "coins", row.amount, .purchase, cause: source.cause, transaction: "t1"),
            ])
        #expect(decision.outcome == .credited)
        #expect(decision.reason == nil)
        #expect(decision.accountID == "a1")
        #expect(
            decision.credit
                == CarriedTransaction(
                    transactionID: "t1", productID: F.coins, outcome: .credited, currency: "coins", amount: row.amount))
        #expect(decision.order == nil)
    }

    @Test func aNewPurchase_recordsTheEnvironmentOfItsCause() throws {
        // Given a receipt verified in the sandbox
        let cause = Cause(receiptID: "r1", environment: "Sandbox")
        let source = SettlementEvent.Source.receipt(receiptID: "r1", claimant: "a1", order: nil, cause: cause)

        // When a purchase of it is credited
        let decision = try F.decide(.transactionVerified(F.purchase("t1"), source: source))

        // Then its row says Sandbox
        let recorded = decision.effects.compactMap { effect -> TransactionRecord? in
            if case .recordTransaction(let record) = effect { record } else { nil }
        }
        #expect(recorded.map(\.environment) == ["Sandbox"])
    }

    // MARK: First-purchase bonus

    struct BonusCase: Sendable, CustomTestStringConvertible {
        var name: String
        var source: SettlementEvent.Source
        var purchasedBefore: Set<String>
        var quantity: Int
        var amount: Int
        var testDescription: String { name }
    }

    static let bonusCases: [BonusCase] = [
        BonusCase(
            name: "receipt, never bought: grant + bonus", source: F.receipt(), purchasedBefore: [], quantity: 1,
            amount: 15),
        BonusCase(
            name: "receipt, never bought, 3 units: bonus once", source: F.receipt(), purchasedBefore: [], quantity: 3,
            amount: 35),
        BonusCase(
            name: "receipt, bought another product only: bonus", source: F.receipt(), purchasedBefore: [F.coins],
            quantity: 1, amount: 15),
        BonusCase(
            name: "receipt, bought before: no bonus", source: F.receipt(), purchasedBefore: [F.starter], quantity: 1,
            amount: 10),
        // A one-time purchase reported by its store before (or without) a receipt keeps its bonus:
        // which arrives first must not decide what the player gets.
        BonusCase(
            name: "notification, never bought: grant + bonus", source: .notification(F.notice()), purchasedBefore: [],
            quantity: 1, amount: 15),
        BonusCase(
            name: "notification, bought before: no bonus", source: .notification(F.notice()),
            purchasedBefore: [F.starter], quantity: 1, amount: 10),
        BonusCase(
            name: "subscription check, never bought: no bonus",
            source: .subscriptionCheck(checkID: "k1", accountID: "a1", cause: Cause()), purchasedBefore: [],
            quantity: 1, amount: 10),
    ]

    @Test(arguments: bonusCases)
    func theFirstPurchaseBonus_isForAPurchaseOfAnAccountThatNeverBoughtTheProduct(_ row: BonusCase) throws {
        // Given a starter pack (10 gems, first purchase +5) and a1, whose token binds any notification
        let transaction = F.purchase("t1", product: F.starter, quantity: row.quantity)
        let state = SettlementState(
            tokenOwner: "a1", accounts: ["a1": AccountState(exists: true, purchasedProducts: row.purchasedBefore)])

        // When it is credited
        let decision = try F.decide(.transactionVerified(transaction, source: row.source), state)

        // Then a1 gets the expected gems, in one purchase entry
        let postings = decision.effects.compactMap { effect -> LedgerPosting? in
            if case .post(let posting) = effect { posting } else { nil }
        }
        #expect(postings.map(\.amount) == [row.amount])
        #expect(postings.map(\.currency) == ["gems"])
        #expect(postings.map(\.kind) == [.purchase])
        #expect(postings.map(\.accountID) == ["a1"])
        #expect(decision.credit?.amount == row.amount)
    }

    // MARK: Overflow

    static let hugeBonus = SettlementEngine(
        catalog: Catalog(products: [
            Product(
                productID: "huge", kind: .consumable, grant: Grant(currency: "gems", amount: 1),
                rules: PurchaseRules(
                    firstPurchase: FirstPurchase(bonus: Grant(currency: "gems", amount: 1_000_000_000))))
        ]))

    struct OverflowCase: Sendable, CustomTestStringConvertible {
        var name: String
        var product: String
        var quantity: Int
        var testDescription: String { name }
    }

    @Test(arguments: [
        OverflowCase(name: "grant × quantity overflows", product: F.coins, quantity: Int.max),
        OverflowCase(name: "grant × quantity overflows just", product: F.coins, quantity: Int.max / 100 + 1),
        OverflowCase(name: "grant × quantity + bonus overflows", product: "huge", quantity: Int.max),
    ])
    func anAbsurdQuantity_isRefused_andNothingIsDecided(_ row: OverflowCase) {
        // Given a purchase whose credit cannot be counted in an Int
        let transaction = F.purchase("t9", product: row.product, quantity: row.quantity)
        let engine = row.product == "huge" ? Self.hugeBonus : F.engine

        // When the engine decides it
        let refusal = F.refusal(.transactionVerified(transaction, source: F.receipt()), engine: engine)

        // Then it is refused, naming the transaction and its quantity
        #expect(refusal == SettlementRefusal("transaction t9: quantity \(row.quantity) is absurd"))
    }

    @Test func theLargestQuantityThatFits_isCredited() throws {
        // Given a quantity whose credit is exactly the largest multiple of 100 an Int holds
        let quantity = Int.max / 100
        // When it is decided
        let decision = try F.decide(.transactionVerified(F.purchase("t1", quantity: quantity), source: F.receipt()))
        // Then it credits it
        #expect(decision.credit?.amount == quantity * 100)
    }

    // MARK: Unknown products

    @Test(arguments: ["com.example.unknown", "com.example.COINS100", "coins"])
    func anUnknownProduct_isNotRecorded_andCreditsNothing(_ productID: String) throws {
        // Given a purchase of a product the catalog does not sell
        let transaction = F.purchase("t1", product: productID)

        // When a receipt of a1 carries it
        let decision = try F.decide(.transactionVerified(transaction, source: F.receipt("r1", by: "a1")))

        // Then nothing is recorded (a later catalog may sell it) and the receipt shows why
        #expect(decision.effects == [])
        #expect(decision.outcome == .unknownProduct)
        #expect(decision.reason == "unknown_product")
        #expect(decision.accountID == "a1")
        #expect(decision.credit == nil)
    }

    // MARK: Known transactions

    struct KnownCase: Sendable, CustomTestStringConvertible {
        var state: TransactionState
        var outcome: TransactionOutcome
        var testDescription: String { "known \(state.rawValue) → \(outcome.rawValue)" }
    }

    @Test(arguments: [
        KnownCase(state: .credited, outcome: .alreadyCredited),
        KnownCase(state: .unpaid, outcome: .alreadyCredited),
        KnownCase(state: .refunded, outcome: .refunded),
        KnownCase(state: .revoked, outcome: .refunded),
    ])
    func aKnownTransaction_isNeverCreditedTwice(_ row: KnownCase) throws {
        // Given a transaction recorded before in `state`
        let state = SettlementState(known: F.known("t1", state: row.state), bound: F.known("t1", state: row.state))

        // When a receipt of a2 carries it again, without a cancellation
        let decision = try F.decide(.transactionVerified(F.purchase("t1"), source: F.receipt("r2", by: "a2")), state)

        // Then nothing changes, and the outcome says why
        #expect(decision.effects == [])
        #expect(decision.outcome == row.outcome)
        #expect(decision.reason == row.outcome.rawValue)
        #expect(decision.credit == nil)
    }

    // MARK: Cancellations found on a receipt

    @Test(arguments: [F.t0, F.at(days: 0.5), F.at(days: 3)])
    func aCancelledUnknownTransaction_isRecordedRefunded_andCreditsNothing(_ cancelled: Date) throws {
        // Given a purchase Apple refunded before any receipt credited it
        let transaction = F.purchase("t1", cancelled: cancelled)
        let source = F.receipt("r1", by: "a1")

        // When a receipt carries it
        let decision = try F.decide(.transactionVerified(transaction, source: source))

        // Then it is recorded refunded, for no account, so that no later receipt credits it
        #expect(decision.effects == [.recordTransaction(F.record(transaction, cause: source.cause, state: .refunded))])
        #expect(decision.outcome == .refunded)
        #expect(decision.reason == "refunded")
    }

    @Test(arguments: [
        (F.at(days: 0.5), F.at(days: 0.5)),
        (F.at(days: 3), F.now),  // a cancellation in the future ends now
    ])
    func aCancelledCreditedTransaction_isTakenBack_onceWithOutcomeRefunded(_ cancelled: Date, _ end: Date) throws {
        // Given coins credited to a1 by r0, and a receipt of a2 showing Apple refunded them
        let state = SettlementState(
            known: F.known("t1"), bound: F.known("t1"), accounts: ["a1": F.payer(["coins": 100])])
        let source = F.receipt("r2", by: "a2")

        // When the engine decides the receipt's transaction
        let decision = try F.decide(.transactionVerified(F.purchase("t1", cancelled: cancelled), source: source), state)

        // Then a1 is debited what it got, the row is refunded, and a1's backend hears of it
        #expect(
            decision.effects == [
                F.posting("a1", "coins", -100, .refund, cause: source.cause, transaction: "t1"),
                .updateTransaction(transactionID: "t1", state: .refunded, cancellationDate: end),
                F.transactionWebhook(
                    .purchaseRefunded, to: "a1", receipt: "r0", notification: nil, transaction: "t1", currency: "coins",
                    amount: -100, balance: 0, writtenOff: 0),
            ])
        #expect(decision.outcome == .refunded)
        #expect(decision.reason == nil)
        #expect(decision.accountID == "a1")
    }

    @Test(arguments: [TransactionState.refunded, .revoked, .unpaid])
    func aCancelledTransactionNotCredited_changesNothing(_ known: TransactionState) throws {
        // Given a transaction recorded before, not in credit
        let state = SettlementState(known: F.known("t1", state: known))

        // When a receipt shows it cancelled
        let decision = try F.decide(
            .transactionVerified(F.purchase("t1", cancelled: F.t0), source: F.receipt("r2", by: "a1")), state)

        // Then nothing moves
        #expect(decision.effects == [])
        #expect(decision.outcome == (known == .unpaid ? .alreadyCredited : .refunded))
    }

    @Test func aCancelledTransactionAlreadyDebited_isNotDebitedAgain() throws {
        // Given coins refunded, then the refund reversed (credited again, with its debit on record)
        let known = F.known("t1", debit: Money(currency: "coins", amount: -100), reversed: true)

        // When a receipt shows the transaction cancelled
        let decision = try F.decide(
            .transactionVerified(F.purchase("t1", cancelled: F.t0), source: F.receipt()), SettlementState(known: known))

        // Then it is not debited a second time
        #expect(decision.effects == [])
        #expect(decision.outcome == .refunded)
        #expect(decision.reason == "already_refunded")
        #expect(decision.accountID == "a1")
    }
}
