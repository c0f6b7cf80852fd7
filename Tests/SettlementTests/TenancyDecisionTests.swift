import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// An event belongs to one app (its cause's) and moves that app's money only: another app's
/// token, order, transaction or subscription binds and changes nothing, and an account a
/// store names is an id by the API's rules, in the event's app.
@Suite struct TenancyDecisionTests {
    typealias F = EngineFixture

    static func records(_ decision: Decision) -> [TransactionRecord] {
        decision.effects.compactMap { effect -> TransactionRecord? in
            if case .recordTransaction(let record) = effect { record } else { nil }
        }
    }

    static func receipt(by claimant: String, app: String, order: OrderClaim? = nil) -> SettlementEvent.Source {
        .receipt(receiptID: "r1", claimant: claimant, order: order, cause: Cause(app: app, receiptID: "r1"))
    }

    @Test func anotherAppsToken_bindsNothing_andTheSubmitterIsCredited() throws {
        // Given a token owned by racer's player-x, in a purchase puzzle's player-1 submits
        let transaction = F.purchase("t1", token: "5f1b0b8a-6a1e-4a53-9a57-4c2f8a1d0e11")
        let state = SettlementState(tokenOwner: "racer/player-x")

        // When puzzle (the default app) settles it
        let decision = try F.decide(
            .transactionVerified(transaction, source: Self.receipt(by: "player-1", app: "")), state)

        // Then puzzle's submitter is credited, and racer's account is not touched
        #expect(Self.records(decision).map(\.accountID) == ["player-1"])
        #expect(Self.records(decision).map(\.binding) == [.submitter])
        #expect(Self.records(decision).map(\.app) == [""])
        #expect(!decision.effects.contains { "\($0)".contains("racer/") })
    }

    @Test func anotherAppsOrder_bindsNothing() throws {
        let order = OrderClaim(orderID: "o1", accountID: "racer/player-x", productID: F.coins, product: nil)
        let decision = try F.decide(
            .transactionVerified(F.purchase("t1"), source: Self.receipt(by: "player-1", app: "", order: order)))
        #expect(Self.records(decision).map(\.accountID) == ["player-1"])
        #expect(decision.order == nil)
    }

    @Test(arguments: ["", "racer"])
    func aTransactionAnotherAppRecorded_isNeitherCreditedNorTakenBack(_ otherApp: String) throws {
        // Given t1 credited in `otherApp`
        let app = otherApp.isEmpty ? "racer" : ""
        let owner = otherApp.isEmpty ? "player-x" : "racer/player-x"
        let known = F.known("t1", account: owner, app: otherApp)
        let state = SettlementState(known: known, bound: known, accounts: [owner: F.holder()])

        // When the other app reports it bought, refunded, revoked, reversed, expired or asked about
        let claimant = app.isEmpty ? "player-1" : "racer/player-1"
        let cause = Cause(app: app, notificationID: "n1", notificationUUID: "U1")
        let refunded = F.purchase("t1", cancelled: F.t0)
        let events: [SettlementEvent] = [
            .transactionVerified(F.purchase("t1"), source: Self.receipt(by: claimant, app: app)),
            .transactionVerified(refunded, source: .notification(cause)),
            .takenBack(refunded, kind: .refund, cause: cause),
            .takenBack(refunded, kind: .revoke, cause: cause),
            .refundReversed(F.purchase("t1"), cause: cause),
            .expired(F.purchase("t1"), cause: cause),
            .gracePeriod(F.purchase("t1"), until: F.at(days: 3), cause: cause),
            .consumptionRequest(F.purchase("t1"), cause: cause),
        ]
        for event in events {
            let decision = try F.decide(event, state)

            // Then nothing changes, and nothing of the other app's account is told
            #expect(decision.effects == [], "\(event)")
            #expect(decision.outcome == .ofAnotherApp && decision.accountID == nil, "\(event)")
        }
    }

    @Test func aStoreNamedAccount_isTheEventsAppsAccount() throws {
        // Given a paid web purchase whose store names its buyer
        var transaction = F.purchase("stripe:pi_1")
        transaction.storeAccountID = "player-7"
        let racer = Cause(app: "racer", notificationID: "n1", notificationUUID: "U1")

        // When racer's credential proved it
        let decision = try F.decide(.transactionVerified(transaction, source: .notification(racer)))

        // Then racer's player-7 is credited, never the default app's
        #expect(Self.records(decision).map(\.accountID) == ["racer/player-7"])
        #expect(Self.records(decision).map(\.app) == ["racer"])
        #expect(decision.accountID == "racer/player-7")
    }

    @Test(arguments: ["racer/player-x", "<b>x</b>", "", String(repeating: "a", count: 129), "a b", "x\u{0}"])
    func aStoreNamedAccountOutsideTheRules_creditsNothing(_ named: String) throws {
        var transaction = F.purchase("stripe:pi_1")
        transaction.storeAccountID = named
        let decision = try F.decide(.transactionVerified(transaction, source: .notification(F.notice())))
        #expect(decision.effects == [])
        #expect(decision.reason == "invalid_store_account_id")
    }

    @Test func aStoreNamedAccountTooLongWithItsAppsPrefix_creditsNothing() throws {
        // 128 characters fit the default app's bare ids, not racer's `racer/…`
        var transaction = F.purchase("stripe:pi_1")
        transaction.storeAccountID = String(repeating: "a", count: 128)
        let racer = Cause(app: "racer", notificationID: "n1", notificationUUID: "U1")
        let decision = try F.decide(.transactionVerified(transaction, source: .notification(racer)))
        #expect(decision.reason == "invalid_store_account_id" && decision.effects == [])
        let fits = try F.decide(.transactionVerified(transaction, source: .notification(F.notice())))
        #expect(Self.records(fits).map(\.accountID) == [String(repeating: "a", count: 128)])
    }
}
