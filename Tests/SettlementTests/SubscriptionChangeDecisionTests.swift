import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// The subscription changes the stores define: Google's replacement token
/// (`linkedPurchaseToken`), Apple's upgrades (`isUpgraded`), Family Sharing, offers.
@Suite struct SubscriptionChangeDecisionTests {
    typealias F = EngineFixture
    static let plus = "com.example.vip.plus"
    static let catalog = Catalog(
        products: F.catalog.products + [
            Product(
                productID: plus, kind: .autoRenewable, grant: Grant(currency: "coins", amount: 50),
                entitlement: "vip_plus",
                rules: PurchaseRules(firstPurchase: FirstPurchase(bonus: Grant(currency: "coins", amount: 25))))
        ])
    static let engine = SettlementEngine(catalog: catalog)

    /// The posting's amounts and the entitlements set, of `decision`.
    static func moved(_ decision: Decision) -> (postings: [Int], entitlements: [String: Date?]) {
        var postings: [Int] = []
        var entitlements: [String: Date?] = [:]
        for effect in decision.effects {
            switch effect {
            case .post(let posting): postings.append(posting.amount)
            case .setEntitlement(_, let name, let end): entitlements[name] = end.expiresAt
            default: break
            }
        }
        return (postings, entitlements)
    }

    // MARK: Google's linkedPurchaseToken

    @Test func aReplacementTokenBindsToTheReplacedAccount_endsItsAccess_andGrantsNoSecondBonus() throws {
        // Given token g1 (vip until day 30) credited to a1, a2 never involved
        let state = SettlementState(
            accounts: ["a1": F.holder(vipUntil: F.at(days: 30), vipOriginal: "g1", purchased: [Self.plus])],
            linked: F.knownVIP("g1-order", original: "g1", account: "a1"))

        // When Google's notification brings token g2 (vip plus, day 0 to 31), which replaced g1
        var upgrade = F.purchase("g2-order", product: Self.plus, original: "g2", expires: F.at(days: 31))
        upgrade.linkedOriginalTransactionID = "g1"
        let decision = try F.decide(
            .transactionVerified(upgrade, source: .notification(F.notice())), state, engine: Self.engine)

        // Then a1 is credited g2's grant without a bonus, vip ends when vip plus starts
        #expect(decision.accountID == "a1" && decision.outcome == TransactionOutcome.credited)
        let (postings, entitlements) = Self.moved(decision)
        #expect(postings == [50])
        #expect(entitlements == ["vip": F.t0, "vip_plus": F.at(days: 31)])
    }

    @Test func aReplacementPostedByAnotherAccountStillCreditsTheReplacedOnesAccount() throws {
        let state = SettlementState(
            accounts: ["a1": F.holder(vipUntil: F.at(days: 30), vipOriginal: "g1"), "a2": F.holder()],
            linked: F.knownVIP("g1-order", original: "g1", account: "a1"))
        var resubscribed = F.purchase("g3-order", product: F.vip, original: "g3", expires: F.at(days: 40))
        resubscribed.linkedOriginalTransactionID = "g1"
        let decision = try F.decide(
            .transactionVerified(resubscribed, source: F.receipt("r9", by: "a2")), state, engine: Self.engine)
        #expect(decision.outcome == TransactionOutcome.boundToAnotherAccount, "\(decision)")
        // The same entitlement runs on under the new token, to its own end
        #expect(Self.moved(decision).entitlements == ["vip": F.at(days: 40)])
        #expect(
            decision.effects.contains {
                if case .setEntitlement("a1", "vip", let end) = $0 { return end.originalTransactionID == "g3" }
                return false
            })
    }

    // MARK: Apple's upgrades

    @Test func anUpgradedTransactionIsNeverARefund_andItsAccessEndsAtTheUpgrade() throws {
        // Given s1 (vip until day 30) credited to a1, holding 100 coins
        let state = SettlementState(
            known: F.knownVIP("s1", account: "a1"), bound: F.knownVIP("s1", account: "a1"),
            accounts: [
                "a1": AccountState(
                    exists: true,
                    entitlements: ["vip": EntitlementEnd(expiresAt: F.at(days: 30), originalTransactionID: "s1")],
                    balances: ["coins": 100])
            ])
        var upgraded = F.purchase("s1", product: F.vip, expires: F.at(days: 30), cancelled: F.at(days: 0.5))
        upgraded.isUpgraded = true

        for event in [
            SettlementEvent.transactionVerified(upgraded, source: F.receipt()),
            .takenBack(upgraded, kind: .refund, cause: F.notice()),
        ] {
            let decision = try F.decide(event, state, engine: Self.engine)
            #expect(decision.reason == "upgraded" && decision.outcome != TransactionOutcome.refunded, "\(decision)")
            #expect(Self.moved(decision).postings == [])
            #expect(Self.moved(decision).entitlements == ["vip": F.at(days: 0.5)])
            #expect(!decision.effects.contains { if case .send = $0 { return true } else { return false } })
        }
    }

    @Test func anUpgradeToTheSameEntitlementCreditedFirstIsNotCutShort() throws {
        // a1's vip already runs to day 365 under the upgrade's own transaction s2 (same subscription)
        let state = SettlementState(
            known: F.knownVIP("s1", account: "a1"), bound: F.knownVIP("s1", account: "a1"),
            accounts: ["a1": F.holder(vipUntil: F.at(days: 365))])
        var upgraded = F.purchase("s1", product: F.vip, expires: F.at(days: 30), cancelled: F.at(days: 0.5))
        upgraded.isUpgraded = true
        let decision = try F.decide(.transactionVerified(upgraded, source: F.receipt()), state, engine: Self.engine)
        #expect(decision.reason == "upgraded" && decision.effects == [])
    }

    @Test func theUpgradesTransactionMovesAccessToTheNewProductAtOnce() throws {
        // a1 holds vip (s1) to day 30; s2 of the same subscription, vip plus, starts at t0
        let state = SettlementState(
            bound: F.knownVIP("s1", account: "a1"), accounts: ["a1": F.holder(vipUntil: F.at(days: 30))])
        let upgrade = F.purchase("s2", product: Self.plus, original: "s1", expires: F.at(days: 30))
        let decision = try F.decide(.transactionVerified(upgrade, source: F.receipt()), state, engine: Self.engine)
        #expect(Self.moved(decision).entitlements == ["vip": F.t0, "vip_plus": F.at(days: 30)])
    }

    @Test func anUpgradedTransactionSeenFirstIsThePeriodItPaidFor() throws {
        var upgraded = F.purchase("s1", product: F.vip, expires: F.at(days: 30), cancelled: F.at(days: 0.5))
        upgraded.isUpgraded = true
        let decision = try F.decide(
            .transactionVerified(upgraded, source: F.receipt()), SettlementState(accounts: ["a1": F.holder()]),
            engine: Self.engine)
        #expect(decision.outcome == TransactionOutcome.credited)
        #expect(Self.moved(decision).entitlements == ["vip": F.at(days: 0.5)])
    }

    // MARK: Family Sharing

    @Test func aFamilyMembersSharedPurchaseGrantsTheEntitlementAndNoCurrency() throws {
        var shared = F.purchase("f1", product: Self.plus, original: "f1", expires: F.at(days: 30))
        shared.ownershipType = "FAMILY_SHARED"
        let decision = try F.decide(
            .transactionVerified(shared, source: F.receipt("r1", by: "member")),
            SettlementState(accounts: ["member": F.holder()]), engine: Self.engine)
        #expect(decision.accountID == "member" && decision.outcome == TransactionOutcome.credited)
        #expect(Self.moved(decision).postings == [])
        #expect(Self.moved(decision).entitlements == ["vip_plus": F.at(days: 30)])
    }
}
