import Foundation

/// What we tell Apple when a customer asks for a refund (`CONSUMPTION_REQUEST`), decided
/// from what the ledger knows, and only with the customer's consent.
///
/// Apple's Send Consumption Information (v2) takes whether the purchase was delivered,
/// the share of it consumed and, optionally, our refund preference. Pure: the store reads
/// the facts, this decides, the responder sends.
public enum ConsumptionAnswer {
    /// What the ledger knows of one refund request.
    public struct Facts: Hashable, Sendable {
        /// The customer's consent to share consumption data: nil if never asked.
        public var consented: Bool?
        /// What the transaction credited, if it credited a currency.
        public var credited: Money?
        /// The account's balance of that currency now.
        public var balance: Int?
        /// Whether the transaction credited an account at all (a currency or an entitlement).
        public var delivered: Bool
        /// When the account was first seen: its tenure with us.
        public var accountSince: Date?

        public init(
            consented: Bool?, credited: Money? = nil, balance: Int? = nil, delivered: Bool, accountSince: Date? = nil
        ) {
            self.consented = consented
            self.credited = credited
            self.balance = balance
            self.delivered = delivered
            self.accountSince = accountSince
        }
    }

    /// Apple's `deliveryStatus`.
    public enum DeliveryStatus: String, Codable, Hashable, Sendable {
        case delivered = "DELIVERED"
        case undeliveredOther = "UNDELIVERED_OTHER"
    }

    /// Apple's `refundPreference`.
    public enum RefundPreference: String, Codable, Hashable, Sendable {
        case decline = "DECLINE"
        case grantFull = "GRANT_FULL"
        case grantProrated = "GRANT_PRORATED"
    }

    /// The answer to send.
    public struct Information: Hashable, Sendable {
        public var deliveryStatus: DeliveryStatus
        /// Milliunits (100000 is all of it) of a currency credit the player spent; nil for
        /// an entitlement, whose use the ledger cannot see.
        public var consumptionPercentage: Int?
        /// Nil: no preference, Apple decides alone.
        public var refundPreference: RefundPreference?
        /// Days the account has been with us, recorded beside the answer (Apple's v2 body
        /// has no field for it).
        public var tenureDays: Int?
    }

    public enum Decision: Hashable, Sendable {
        case send(Information)
        /// Not answered: Apple requires consent, and without it asks for no answer.
        case withhold(reason: String)
    }

    /// Decides the answer for `facts` at `now`.
    ///
    /// The share consumed is what the player no longer holds of the credit: `credited`
    /// less the balance (never less than 0 nor more than the credit), rounded down. The
    /// preference follows it when `prefers` is on: nothing spent, grant in full; all of it,
    /// decline; some, prorate.
    public static func decide(_ facts: Facts, now: Date, prefers: Bool = true) -> Decision {
        guard facts.consented == true else {
            return .withhold(reason: facts.consented == false ? "consent_withdrawn" : "no_consent")
        }
        let tenure = facts.accountSince.map { max(0, Int(now.timeIntervalSince($0) / 86_400)) }
        guard facts.delivered else {
            return .send(
                Information(
                    deliveryStatus: .undeliveredOther, consumptionPercentage: 0,
                    refundPreference: prefers ? .grantFull : nil, tenureDays: tenure))
        }
        guard let credited = facts.credited, credited.amount > 0 else {
            return .send(
                Information(
                    deliveryStatus: .delivered, consumptionPercentage: nil, refundPreference: nil, tenureDays: tenure))
        }
        let held = min(max(facts.balance ?? 0, 0), credited.amount)
        let consumed = credited.amount - held
        // In 128 bits: consumed × 100000 may not fit in 64; the quotient is at most 100000.
        let wide = consumed.multipliedFullWidth(by: 100_000)
        let share = credited.amount.dividingFullWidth((high: wide.high, low: wide.low)).quotient
        let preference: RefundPreference? =
            !prefers ? nil : share == 0 ? .grantFull : share == 100_000 ? .decline : .grantProrated
        return .send(
            Information(
                deliveryStatus: .delivered, consumptionPercentage: share, refundPreference: preference,
                tenureDays: tenure))
    }
}
