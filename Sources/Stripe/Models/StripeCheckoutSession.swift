import Foundation

/// The members of a [Checkout Session](https://docs.stripe.com/api/checkout/sessions/object)
/// the verifier reads; `line_items` is there only when the call expanded it.
public struct StripeCheckoutSession: Decodable, Hashable, Sendable {
    public var id: String
    /// `payment`, `subscription` or `setup`: only `payment` sells coins.
    public var mode: String?
    /// `paid`, `unpaid` (an async method still on its way) or `no_payment_required`.
    public var paymentStatus: String
    /// `open`, `complete` or `expired`.
    public var status: String?
    /// The account the game's backend named when it created the session.
    public var clientReferenceId: String?
    /// The payment's id (`pi_…`), once there is one.
    public var paymentIntent: String?
    public var created: Int?
    public var livemode: Bool?
    public var lineItems: StripeList<StripeLineItem>?
    /// What the customer paid, in the smallest unit of `currency` (Stripe's `amount_total`).
    public var amountTotal: Int64?
    /// Three-letter ISO 4217 code, lowercase as Stripe writes it.
    public var currency: String?
    /// `total_details`: of `amount_total`, what was tax (`amount_tax`, smallest unit).
    public var totalDetails: TotalDetails?

    /// [total_details](https://docs.stripe.com/api/checkout/sessions/object#checkout_session_object-total_details).
    public struct TotalDetails: Decodable, Hashable, Sendable {
        public var amountTax: Int64?
    }

    public init(
        id: String, mode: String? = "payment", paymentStatus: String, status: String? = "complete",
        clientReferenceId: String? = nil, paymentIntent: String? = nil, created: Int? = nil, livemode: Bool? = false,
        lineItems: StripeList<StripeLineItem>? = nil
    ) {
        self.id = id
        self.mode = mode
        self.paymentStatus = paymentStatus
        self.status = status
        self.clientReferenceId = clientReferenceId
        self.paymentIntent = paymentIntent
        self.created = created
        self.livemode = livemode
        self.lineItems = lineItems
    }
}

/// One line of a session: a price and how many of it.
public struct StripeLineItem: Decodable, Hashable, Sendable {
    public struct Price: Decodable, Hashable, Sendable {
        public var id: String
        /// What the pipeline credits: the catalog's store product id, set on the price.
        public var lookupKey: String?
    }

    public var id: String
    public var quantity: Int?
    public var price: Price?
}

/// A page of a Stripe list (`{"object": "list", "data": [...], "has_more": false}`).
public struct StripeList<Element: Decodable & Hashable & Sendable>: Decodable, Hashable, Sendable {
    public var data: [Element]
    public var hasMore: Bool?
}
