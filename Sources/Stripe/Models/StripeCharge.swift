import Foundation

/// The members of a [Charge](https://docs.stripe.com/api/charges/object) the verifier reads.
public struct StripeCharge: Decodable, Hashable, Sendable {
    public var id: String
    /// What was charged, in the currency's smallest unit.
    public var amount: Int
    /// What was refunded so far, every refund together (Stripe adds each one up).
    public var amountRefunded: Int
    /// Whether all of it was refunded.
    public var refunded: Bool?
    /// The payment (`pi_…`) the charge belongs to: the pipeline's transaction.
    public var paymentIntent: String?
    public var created: Int?
    public var livemode: Bool?

    /// The share refunded in milliunits (100000 is all of it), rounded down so that a player
    /// never loses more than was paid back.
    public var refundedShare: Int { Self.share(amountRefunded, of: amount) }

    static func share(_ part: Int, of whole: Int) -> Int {
        guard whole > 0, part < whole else { return 100_000 }
        return Int(Int64(max(part, 0)) * 100_000 / Int64(whole))
    }
}
