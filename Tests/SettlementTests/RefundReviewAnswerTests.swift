import Foundation
import PipelineCore
import Settlement
import Testing

/// What we tell Google of a chargeback it reviews: the share of the coins spent, and a
/// preference that follows it; nothing of a player who withdrew consent.
@Suite struct RefundReviewAnswerTests {
    static let coins = Money(currency: "coins", amount: 100)

    @Test(arguments: [
        (100, 0, RefundReviewAnswer.Preference.approve), (60, 40_000, .neutral), (1, 99_000, .neutral),
        (0, 100_000, .decline), (-30, 100_000, .decline), (250, 0, .approve),
    ])
    func thePreferenceFollowsTheShareSpent(_ balance: Int, _ share: Int, _ preference: RefundReviewAnswer.Preference) {
        // Google asks for no consent: a player never asked is answered as one who agreed
        for consented in [true, nil] as [Bool?] {
            let facts = ConsumptionAnswer.Facts(
                consented: consented, credited: Self.coins, balance: balance, delivered: true)
            #expect(
                RefundReviewAnswer.decide(facts)
                    == .init(
                        refundPreference: preference, consumptionPercentageMilliunits: share,
                        sampleContentProvided: false))
            // Without preferences, the share alone
            #expect(RefundReviewAnswer.decide(facts, prefers: false).refundPreference == .neutral)
            #expect(RefundReviewAnswer.decide(facts, prefers: false).consumptionPercentageMilliunits == share)
        }
    }

    @Test func nothingDelivered_isApprovedWithNothingConsumed() {
        let facts = ConsumptionAnswer.Facts(consented: nil, delivered: false)
        #expect(
            RefundReviewAnswer.decide(facts)
                == .init(refundPreference: .approve, consumptionPercentageMilliunits: 0, sampleContentProvided: false))
    }

    @Test func anEntitlement_whoseUseTheLedgerCannotSee_isNeutralWithNoShare() {
        let facts = ConsumptionAnswer.Facts(consented: true, delivered: true)
        #expect(
            RefundReviewAnswer.decide(facts)
                == .init(refundPreference: .neutral, consumptionPercentageMilliunits: nil, sampleContentProvided: false)
        )
    }

    @Test func aPlayerWhoWithdrewConsent_isAnsweredNeutral_withNothingOfTheirUse() {
        let facts = ConsumptionAnswer.Facts(consented: false, credited: Self.coins, balance: 0, delivered: true)
        #expect(
            RefundReviewAnswer.decide(facts)
                == .init(refundPreference: .neutral, consumptionPercentageMilliunits: nil, sampleContentProvided: false)
        )
    }
}
