import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// Apple's `ONE_TIME_CHARGE`: a consumable bought and reported by notification is a verified
/// transaction from a notification, credited once to the account its `appAccountToken` names;
/// without a known token it waits for the receipt that binds it.
@Suite struct OneTimeChargeDecisionTests {
    typealias F = EngineFixture
    static let cause = F.notice("n1", uuid: "U1")

    @Test func aNotifiedConsumable_creditsTheTokensAccount_onceForAllItsUnits() throws {
        // Given 3 × 100 coins bought with a1's token, never seen before
        let transaction = F.purchase("c1", quantity: 3, token: "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        let state = SettlementState(tokenOwner: "a1")

        // When ONE_TIME_CHARGE reports it
        let decision = try F.decide(.transactionVerified(transaction, source: .notification(Self.cause)), state)

        // Then a1 gets 300 coins, recorded as bound by the token
        #expect(decision.accountID == "a1" && decision.outcome == .credited)
        #expect(
            decision.effects.contains(F.posting("a1", "coins", 300, .purchase, cause: Self.cause, transaction: "c1")))
        #expect(
            decision.effects.contains(
                .recordTransaction(
                    F.creditedRecord(transaction, cause: Self.cause, account: "a1", binding: .appAccountToken))))

        // And the same transaction reported again (a receipt, a resend) credits nothing more
        let again = try F.decide(
            .transactionVerified(transaction, source: .notification(F.notice("n2", uuid: "U2"))),
            SettlementState(known: F.known("c1", purchase: Money(currency: "coins", amount: 300)), tokenOwner: "a1"))
        #expect(!again.effects.contains { if case .post = $0 { true } else { false } })
    }

    @Test func aNotifiedConsumable_withoutAKnownToken_waitsForItsReceipt() throws {
        let transaction = F.purchase("c2", quantity: 1)
        let decision = try F.decide(.transactionVerified(transaction, source: .notification(Self.cause)))
        #expect(decision.reason == "unbound" && decision.effects.isEmpty)
    }
}
