import Foundation
import PipelineCore
import Settlement
import Testing

/// What we tell Apple of a refund request: only with consent, the share of the coins spent,
/// and a preference that follows it.
@Suite struct ConsumptionAnswerTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let coins = Money(currency: "coins", amount: 100)

    @Test(arguments: [(Bool?.none, "no_consent"), (false, "consent_withdrawn")])
    func withoutConsentNothingIsSent(_ consented: Bool?, _ reason: String) {
        let facts = ConsumptionAnswer.Facts(consented: consented, credited: Self.coins, balance: 0, delivered: true)
        #expect(ConsumptionAnswer.decide(facts, now: Self.now) == .withhold(reason: reason))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var balance: Int
        var share: Int
        var preference: ConsumptionAnswer.RefundPreference
        var testDescription: String { "100 credited, \(balance) held: \(share) milliunits consumed" }
    }

    static let cases = [
        Case(balance: 100, share: 0, preference: .grantFull),
        Case(balance: 250, share: 0, preference: .grantFull),
        Case(balance: 60, share: 40_000, preference: .grantProrated),
        Case(balance: 1, share: 99_000, preference: .grantProrated),
        Case(balance: 0, share: 100_000, preference: .decline),
        Case(balance: -30, share: 100_000, preference: .decline),
    ]

    @Test(arguments: cases)
    func theShareConsumedIsWhatThePlayerNoLongerHolds(_ row: Case) {
        let facts = ConsumptionAnswer.Facts(
            consented: true, credited: Self.coins, balance: row.balance, delivered: true,
            accountSince: Self.now.addingTimeInterval(-10.5 * 86_400))
        guard case .send(let answer) = ConsumptionAnswer.decide(facts, now: Self.now) else {
            Issue.record("not sent")
            return
        }
        #expect(answer.deliveryStatus == .delivered)
        #expect(answer.consumptionPercentage == row.share)
        #expect(answer.refundPreference == row.preference)
        #expect(answer.tenureDays == 10)
        // Without a preference configured, none is sent
        guard case .send(let plain) = ConsumptionAnswer.decide(facts, now: Self.now, prefers: false) else { return }
        #expect(plain.refundPreference == nil)
        #expect(plain.consumptionPercentage == row.share)
    }

    @Test func aHugeCreditRoundsDownWithoutOverflow() {
        let facts = ConsumptionAnswer.Facts(
            consented: true, credited: Money(currency: "coins", amount: Int.max), balance: Int.max / 3, delivered: true)
        guard case .send(let answer) = ConsumptionAnswer.decide(facts, now: Self.now) else {
            Issue.record("not sent")
            return
        }
        #expect(answer.consumptionPercentage == 66_666)
    }

    @Test func anUndeliveredPurchaseIsSaidSo_andAnEntitlementHasNoShare() {
        let undelivered = ConsumptionAnswer.Facts(consented: true, delivered: false)
        guard case .send(let missing) = ConsumptionAnswer.decide(undelivered, now: Self.now) else {
            Issue.record("not sent")
            return
        }
        #expect(missing.deliveryStatus == .undeliveredOther)
        #expect(missing.consumptionPercentage == 0)
        #expect(missing.refundPreference == .grantFull)

        let entitlement = ConsumptionAnswer.Facts(consented: true, delivered: true)
        guard case .send(let vip) = ConsumptionAnswer.decide(entitlement, now: Self.now) else {
            Issue.record("not sent")
            return
        }
        #expect(vip.deliveryStatus == .delivered)
        #expect(vip.consumptionPercentage == nil)
        #expect(vip.refundPreference == nil)
        #expect(vip.tenureDays == nil)
    }
}
