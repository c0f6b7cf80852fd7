import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// Malformed events are refused whole, with a reason that names what is wrong; operators'
/// adjustments move one balance; and the store is told which accounts an event may touch.
@Suite struct RefusalTests {
    typealias F = EngineFixture

    /// Every event that carries a transaction, from every source.
    static func events(carrying transaction: VerifiedTransaction) -> [SettlementEvent] {
        let cause = F.notice()
        return [
            .transactionVerified(transaction, source: F.receipt()),
            .transactionVerified(transaction, source: .notification(cause)),
            .transactionVerified(transaction, source: .subscriptionCheck(checkID: "k1", accountID: "a1", cause: cause)),
            .takenBack(transaction, kind: .refund, cause: cause),
            .takenBack(transaction, kind: .revoke, cause: cause),
            .refundReversed(transaction, cause: cause),
            .expired(transaction, cause: cause),
            .gracePeriod(transaction, until: F.at(days: 5), cause: cause),
            .consumptionRequest(transaction, cause: cause),
        ]
    }

    /// A state in which every event above would change something.
    static let busyState = SettlementState(
        known: F.known("t1", state: .refunded, debit: Money(currency: "coins", amount: -100)), bound: F.knownVIP(),
        tokenOwner: "a1", accounts: ["a1": F.holder(vipUntil: F.at(days: 30))])

    struct MalformedCase: Sendable, CustomTestStringConvertible {
        var name: String
        var transaction: VerifiedTransaction
        var reason: String
        var testDescription: String { name }
    }

    static let malformed: [MalformedCase] = [
        MalformedCase(
            name: "no transaction id",
            transaction: VerifiedTransaction(transactionID: "", originalTransactionID: "t1", productID: F.coins),
            reason: "a transaction has no transaction id"),
        MalformedCase(
            name: "no transaction id nor product: the id first",
            transaction: VerifiedTransaction(transactionID: "", originalTransactionID: "", productID: ""),
            reason: "a transaction has no transaction id"),
        MalformedCase(
            name: "no product id",
            transaction: VerifiedTransaction(transactionID: "t1", originalTransactionID: "t1", productID: ""),
            reason: "transaction t1 has no product id"),
        MalformedCase(
            name: "no original transaction id",
            transaction: VerifiedTransaction(transactionID: "t1", originalTransactionID: "", productID: F.coins),
            reason: "transaction t1 has no original transaction id"),
        MalformedCase(
            name: "quantity 0", transaction: F.purchase("t1", quantity: 0),
            reason: "transaction t1: quantity 0 is not a positive count"),
        MalformedCase(
            name: "quantity -1", transaction: F.purchase("t1", quantity: -1),
            reason: "transaction t1: quantity -1 is not a positive count"),
        MalformedCase(
            name: "quantity Int.min", transaction: F.purchase("t1", quantity: Int.min),
            reason: "transaction t1: quantity \(Int.min) is not a positive count"),
        MalformedCase(
            name: "revocation percentage -1", transaction: F.purchase("t1", share: -1),
            reason: "transaction t1: revocation percentage -1 is not within 0...100000"),
        MalformedCase(
            name: "revocation percentage 100001", transaction: F.purchase("t1", share: 100_001),
            reason: "transaction t1: revocation percentage 100001 is not within 0...100000"),
        MalformedCase(
            name: "revocation percentage Int.max", transaction: F.purchase("t1", share: Int.max),
            reason: "transaction t1: revocation percentage \(Int.max) is not within 0...100000"),
        MalformedCase(
            name: "negative quantity before a bad share", transaction: F.purchase("t1", quantity: -2, share: -5),
            reason: "transaction t1: quantity -2 is not a positive count"),
    ]

    @Test(arguments: malformed, 0..<9)
    func aMalformedTransaction_isRefusedByEveryEvent_namingTheTransactionAndTheProblem(
        _ row: MalformedCase, _ eventIndex: Int
    ) {
        // Given a malformed transaction, in a state where the event would change something
        let event = Self.events(carrying: row.transaction)[eventIndex]

        // When the engine decides the event
        let refusal = F.refusal(event, Self.busyState)

        // Then it refuses it with the reason, so that nothing of it is applied
        #expect(refusal == SettlementRefusal(row.reason))
        #expect(refusal?.description == row.reason)
    }

    @Test(arguments: [
        F.purchase("t1", quantity: 1), F.purchase("t1", share: 0), F.purchase("t1", share: 100_000),
        F.purchase("t1", share: 50_000), F.purchase("t1", quantity: 1_000_000),
    ])
    func aTransactionAtTheEdgesOfTheChecks_isDecided(_ transaction: VerifiedTransaction) {
        // Given a transaction whose quantity or share sits on an accepted edge
        // When every event carries it / Then none is refused
        for event in Self.events(carrying: transaction) {
            #expect(F.refusal(event, Self.busyState) == nil, "\(event)")
        }
    }

    // MARK: Adjustments

    struct AdjustmentRefusal: Sendable, CustomTestStringConvertible {
        var name: String
        var adjustment: Adjustment
        var reason: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        AdjustmentRefusal(
            name: "no account",
            adjustment: Adjustment(
                id: "adj-1", accountID: "", currency: "coins", amount: 5, reason: "support", operatorName: "alice"),
            reason: "an adjustment names no account"),
        AdjustmentRefusal(
            name: "nothing at all: the account first",
            adjustment: Adjustment(
                id: "adj-1", accountID: "", currency: "", amount: 0, reason: "", operatorName: "alice"),
            reason: "an adjustment names no account"),
        AdjustmentRefusal(
            name: "no currency",
            adjustment: Adjustment(
                id: "adj-1", accountID: "a1", currency: "", amount: 5, reason: "support", operatorName: "alice"),
            reason: "an adjustment names no currency"),
        AdjustmentRefusal(
            name: "no currency nor amount: the currency first",
            adjustment: Adjustment(
                id: "adj-1", accountID: "a1", currency: "", amount: 0, reason: "", operatorName: "alice"),
            reason: "an adjustment names no currency"),
        AdjustmentRefusal(
            name: "amount 0",
            adjustment: Adjustment(
                id: "adj-1", accountID: "a1", currency: "coins", amount: 0, reason: "support", operatorName: "alice"),
            reason: "an adjustment of 0 changes nothing"),
        AdjustmentRefusal(
            name: "empty reason",
            adjustment: Adjustment(
                id: "adj-1", accountID: "a1", currency: "coins", amount: 5, reason: "", operatorName: "alice"),
            reason: "an adjustment needs a reason"),
        AdjustmentRefusal(
            name: "blank reason",
            adjustment: Adjustment(
                id: "adj-1", accountID: "a1", currency: "coins", amount: 5, reason: "   ", operatorName: "alice"),
            reason: "an adjustment needs a reason"),
        AdjustmentRefusal(
            name: "whitespace and newlines",
            adjustment: Adjustment(
                id: "adj-1", accountID: "a1", currency: "coins", amount: -5, reason: "\n\t \r\n", operatorName: "alice"),
            reason: "an adjustment needs a reason"),
    ])
    func anIncompleteAdjustment_isRefused(_ row: AdjustmentRefusal) {
        // Given an adjustment missing something / When it is decided / Then it is refused with the reason
        #expect(F.refusal(.adjustment(row.adjustment)) == SettlementRefusal(row.reason))
    }

    @Test(arguments: [1, 250, 1_000_000_000])
    func aGrant_postsOneAdjustmentEntryTaggedWithItsId_andSaysSo(_ amount: Int) throws {
        // Given an operator's grant of a1's coins
        let adjustment = Adjustment(
            id: "adj-1", accountID: "a1", currency: "coins", amount: amount, reason: " goodwill ", operatorName: "alice"
        )

        // When it is decided, whatever else is known
        let decision = try F.decide(.adjustment(adjustment), Self.busyState)

        // Then exactly one adjustment entry of that amount moves a1's balance, and a webhook tells it
        #expect(
            decision.effects == [
                .openAccount("a1"),
                .post(
                    LedgerPosting(
                        accountID: "a1", currency: "coins", amount: amount, kind: .adjustment, receiptID: nil,
                        notificationID: nil, transactionID: "adjustment:adj-1")),
                .send(
                    Webhook(
                        type: .accountAdjusted, accountID: "a1", receiptID: nil,
                        data: .adjusted(
                            AdjustmentEventData(
                                adjustmentID: "adj-1", currency: "coins", amount: amount, balance: amount,
                                writtenOff: 0,
                                reason: " goodwill ", operatorName: "alice")))),
            ])
        #expect(decision.accountID == "a1")
        #expect(decision.reason == nil)
        #expect(decision.credit == nil)
    }

    @Test(arguments: [
        (
            "no such account",
            Adjustment(
                id: "adj-1", accountID: "nobody", currency: "coins", amount: 5, reason: "r", operatorName: "alice"),
            "no account 'nobody'"
        ),
        (
            "unknown currency",
            Adjustment(
                id: "adj-1", accountID: "a1", currency: "diamonds", amount: 5, reason: "r", operatorName: "alice"),
            "no product grants the currency 'diamonds' (known: coins, gems)"
        ),
        (
            "absurd amount",
            Adjustment(
                id: "adj-1", accountID: "a1", currency: "coins", amount: Int.min, reason: "r", operatorName: "alice"),
            "an adjustment of \(Int.min) is beyond 1000000000"
        ),
        (
            "no operator",
            Adjustment(id: "adj-1", accountID: "a1", currency: "coins", amount: 5, reason: "r", operatorName: ""),
            "an adjustment needs an operator"
        ),
    ])
    func anAdjustmentTheBooksCannotTake_isRefused(_ name: String, _ adjustment: Adjustment, _ reason: String) {
        #expect(F.refusal(.adjustment(adjustment), Self.busyState) == SettlementRefusal(reason), "\(name)")
    }

    @Test func aRevokeBeyondTheBalance_followsThePolicy() throws {
        var state = Self.busyState
        state.accounts["a1"]?.balances = ["coins": 30]
        let revoke = Adjustment(
            id: "adj-2", accountID: "a1", currency: "coins", amount: -100, reason: "chargeback", operatorName: "bob")
        // allow: the balance goes to -70 and the account is flagged
        let allowed = try F.decide(.adjustment(revoke), state)
        #expect(
            allowed.effects.contains(
                .flagAccount(
                    AccountFlag(
                        accountID: "a1", reason: .negativeBalance, currency: "coins", amount: -70,
                        transactionID: "adjustment:adj-2"))))
        // clamp: the revoke whole, 70 written off, the balance stops at 0
        var catalog = F.catalog
        catalog.rawNegativeBalance = "clamp"
        let clamped = try F.decide(.adjustment(revoke), state, engine: SettlementEngine(catalog: catalog))
        let postings = clamped.effects.compactMap { effect -> LedgerPosting? in
            if case .post(let posting) = effect { return posting }
            return nil
        }
        #expect(postings.map(\.amount) == [-100, 70])
        #expect(postings.map(\.kind) == [.adjustment, .writeOff])
        guard case .send(let webhook) = clamped.effects.last, case .adjusted(let data) = webhook.data else {
            Issue.record("no webhook")
            return
        }
        #expect(data.balance == 0 && data.writtenOff == 70)
    }

    @Test func anEntitlementGrant_setsItsEnd_andAnUnknownOneIsRefused() throws {
        let until = F.at(days: 10)
        let grant = EntitlementGrant(
            id: "adj-3", accountID: "a1", entitlement: "vip", until: until, reason: "apology", operatorName: "alice")
        let decision = try F.decide(.entitlementGrant(grant), Self.busyState)
        #expect(
            decision.effects.first
                == .setEntitlement(accountID: "a1", name: "vip", end: EntitlementEnd(expiresAt: until)))
        guard case .send(let webhook) = decision.effects.last else {
            Issue.record("no webhook")
            return
        }
        #expect(webhook.type == .entitlementGranted)
        var unknown = grant
        unknown.entitlement = "god-mode"
        #expect(
            F.refusal(.entitlementGrant(unknown), Self.busyState)
                == SettlementRefusal("no product grants the entitlement 'god-mode' (known: vip)"))
    }

    // MARK: Accounts involved

    struct InvolvedCase: Sendable, CustomTestStringConvertible {
        var name: String
        var event: SettlementEvent
        var state: SettlementState
        var accounts: [String]
        var testDescription: String { name }
    }

    static func state(bound: String?, known: String?, token: String?) -> SettlementState {
        SettlementState(
            known: known.map { F.known("t1", account: $0) }, bound: bound.map { F.knownVIP(account: $0) },
            tokenOwner: token)
    }

    static let involved: [InvolvedCase] = {
        let t = F.purchase("t1")
        let order = OrderClaim(orderID: "o1", accountID: "a4", productID: F.coins, product: nil)
        let check = SettlementEvent.Source.subscriptionCheck(checkID: "k1", accountID: "a6", cause: Cause())
        let all = state(bound: "a1", known: "a2", token: "a3")
        return [
            InvolvedCase(
                name: "receipt: bound, known, token, order, claimant",
                event: .transactionVerified(t, source: F.receipt(by: "a5", order: order)), state: all,
                accounts: ["a1", "a2", "a3", "a4", "a5"]),
            InvolvedCase(
                name: "receipt of a fresh purchase: the claimant",
                event: .transactionVerified(t, source: F.receipt(by: "a5")),
                state: SettlementState(), accounts: ["a5"]),
            InvolvedCase(
                name: "receipt: each account once, first place kept",
                event: .transactionVerified(t, source: F.receipt(by: "a1", order: order)),
                state: state(bound: nil, known: "a4", token: "a1"), accounts: ["a4", "a1"]),
            InvolvedCase(
                name: "notification: bound, known, token",
                event: .transactionVerified(t, source: .notification(F.notice())),
                state: all, accounts: ["a1", "a2", "a3"]),
            InvolvedCase(
                name: "notification of nothing known: none",
                event: .transactionVerified(t, source: .notification(F.notice())),
                state: SettlementState(), accounts: []),
            InvolvedCase(
                name: "check: bound, known, token, the check's account", event: .transactionVerified(t, source: check),
                state: all, accounts: ["a1", "a2", "a3", "a6"]),
            InvolvedCase(
                name: "refund: bound, known, token", event: .takenBack(t, kind: .refund, cause: F.notice()), state: all,
                accounts: ["a1", "a2", "a3"]),
            InvolvedCase(
                name: "expiry of a bound subscription", event: .expired(t, cause: F.notice()),
                state: state(bound: "a1", known: "a1", token: nil), accounts: ["a1"]),
            InvolvedCase(
                name: "adjustment: its account",
                event: .adjustment(
                    Adjustment(
                        id: "adj-1", accountID: "a7", currency: "coins", amount: 1, reason: "x", operatorName: "alice")),
                state: SettlementState(), accounts: ["a7"]),
        ]
    }()

    @Test(arguments: involved)
    func theAccountsInvolved_areEveryAccountTheEventMayTouch_onceInOrder(_ row: InvolvedCase) {
        // Given an event and what is known / When the store asks which accounts to read
        let accounts = SettlementEngine.accountsInvolved(in: row.event, state: row.state)
        // Then it reads exactly those, each once
        #expect(accounts == row.accounts)
    }
}
