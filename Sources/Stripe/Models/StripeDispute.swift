import Foundation

/// The members of a [Dispute](https://docs.stripe.com/api/disputes/object) the verifier
/// reads, read with `expand[]=charge` so that its charge comes in the same answer.
public struct StripeDispute: Decodable, Hashable, Sendable {
    public var id: String
    /// What is disputed, in the currency's smallest unit (at most the charge's amount).
    public var amount: Int
    /// `warning_needs_response`, `needs_response`, `under_review`, `won`, `lost`, ...
    public var status: String
    public var charge: Expandable<StripeCharge>
    public var paymentIntent: String?
    public var created: Int?
    public var livemode: Bool?

    /// An id, or the object when the call expanded it.
    public enum Expandable<Object: Decodable & Hashable & Sendable>: Decodable, Hashable, Sendable {
        case id(String)
        case object(Object)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let id = try? container.decode(String.self) {
                self = .id(id)
            } else {
                self = .object(try container.decode(Object.self))
            }
        }

        public var object: Object? {
            if case .object(let object) = self { return object }
            return nil
        }
    }
}
