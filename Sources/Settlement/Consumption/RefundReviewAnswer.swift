import Foundation

/// What we tell Google when it asks about a chargeback (RTDN
/// `pendingRefundReviewNotification`), decided from what the ledger knows.
///
/// Google's `orders.reviewrefund` takes a refund preference (`APPROVE`, `DECLINE`,
/// `NEUTRAL`), whether a free sample or trial was given before the purchase, and optionally
/// the share of the purchase consumed, in milliunits, and the player's usage events. Pure:
/// the store reads the facts (the same ones Apple's consumption answer reads), this decides,
/// the answerer sends. Usage events are never sent: they would carry the player's ids.
public enum RefundReviewAnswer {
    /// Google's `RefundPreference`.
    public enum Preference: String, Codable, Hashable, Sendable {
        case approve = "APPROVE"
        case decline = "DECLINE"
        case neutral = "NEUTRAL"
    }

    /// The answer to send.
    public struct Information: Hashable, Sendable {
        public var refundPreference: Preference
        /// Milliunits (100000 is all of it) of a currency credit the player spent; nil when
        /// not sent (an entitlement, whose use the ledger cannot see, or consent withdrawn).
        public var consumptionPercentageMilliunits: Int?
        /// Whether a free sample, trial or description was given before the purchase: the
        /// ledger does not know of one, so always false.
        public var sampleContentProvided: Bool

        public init(refundPreference: Preference, consumptionPercentageMilliunits: Int?, sampleContentProvided: Bool) {
            self.refundPreference = refundPreference
            self.consumptionPercentageMilliunits = consumptionPercentageMilliunits
            self.sampleContentProvided = sampleContentProvided
        }
    }

    /// Decides the answer for `facts`.
    ///
    /// Google's body has no consent field and the answer carries no personal data, so it is
    /// sent whether or not the player was ever asked; a player who withdrew consent is
    /// answered `NEUTRAL` with nothing of their use. Otherwise the share consumed is Apple's
    /// answer's (what the player no longer holds of the credit, rounded down) and, when
    /// `prefers` is on, the preference follows it: nothing delivered or nothing spent,
    /// approve; all of it spent, decline; some, or an entitlement, neutral.
    public static func decide(_ facts: ConsumptionAnswer.Facts, prefers: Bool = true) -> Information {
        var information = Information(
            refundPreference: .neutral, consumptionPercentageMilliunits: nil, sampleContentProvided: false)
        guard facts.consented != false else { return information }
        guard facts.delivered else {
            information.consumptionPercentageMilliunits = 0
            if prefers { information.refundPreference = .approve }
            return information
        }
        guard case .send(let apple) = ConsumptionAnswer.decide(facts.consentedForm, now: .distantPast, prefers: false),
            let share = apple.consumptionPercentage
        else { return information }
        information.consumptionPercentageMilliunits = share
        if prefers { information.refundPreference = share == 0 ? .approve : share == 100_000 ? .decline : .neutral }
        return information
    }
}

extension ConsumptionAnswer.Facts {
    /// The same facts, consent taken as given: Google asks for none.
    fileprivate var consentedForm: Self {
        var facts = self
        facts.consented = true
        return facts
    }
}
