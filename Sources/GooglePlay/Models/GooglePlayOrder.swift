import Foundation

/// An order as the Orders API's `orders.get` answers it: what the buyer paid for one payment
/// of a one-time product or one period of a subscription. Only what the revenue ledger reads;
/// enumerations as Google's strings.
/// https://developers.google.com/android-publisher/api-ref/rest/v3/orders
public struct GooglePlayOrder: Codable, Hashable, Sendable {
    /// Google's `Money`: `units` whole units (an int64 written as a string) and `nanos`
    /// billionths, of the same sign.
    public struct Money: Codable, Hashable, Sendable {
        public var currencyCode: String?
        public var units: String?
        public var nanos: Int?

        public init(currencyCode: String, units: String, nanos: Int = 0) {
            self.currencyCode = currencyCode
            self.units = units
            self.nanos = nanos
        }

        /// The amount in millionths of the currency's unit, rounded toward zero (nanos finer
        /// than a micro are below any currency's minor unit); nil when it does not fit or
        /// is not Google's shape.
        public var micros: Int64? {
            guard let units = Int64(units ?? "0"), let nanos = nanos ?? 0 as Int?,
                (-999_999_999...999_999_999).contains(nanos), units == 0 || nanos == 0 || (units < 0) == (nanos < 0)
            else { return nil }
            let (whole, overflow) = units.multipliedReportingOverflow(by: 1_000_000)
            let (sum, overflowed) = whole.addingReportingOverflow(Int64(nanos / 1000))
            return overflow || overflowed ? nil : sum
        }
    }

    public struct BuyerAddress: Codable, Hashable, Sendable {
        /// ISO 3166-1 alpha-2.
        public var buyerCountry: String?
    }

    public struct LineItem: Codable, Hashable, Sendable {
        public struct SubscriptionDetails: Codable, Hashable, Sendable {
            public var basePlanId: String?
            public var offerId: String?
            /// `BASE`, `INTRODUCTORY` or `FREE_TRIAL` (deprecated for `offerPhaseDetails`, still answered).
            public var offerPhase: String?

            public init(basePlanId: String? = nil, offerId: String? = nil, offerPhase: String? = nil) {
                self.basePlanId = basePlanId
                self.offerId = offerId
                self.offerPhase = offerPhase
            }
        }

        public var productId: String?
        /// What the buyer paid for this item, discounts and tax included.
        public var total: Money?
        public var tax: Money?
        public var subscriptionDetails: SubscriptionDetails?

        public init(
            productId: String, total: Money? = nil, tax: Money? = nil, subscriptionDetails: SubscriptionDetails? = nil
        ) {
            self.productId = productId
            self.total = total
            self.tax = tax
            self.subscriptionDetails = subscriptionDetails
        }
    }

    public var orderId: String?
    public var purchaseToken: String?
    /// `PENDING`, `PROCESSED`, `CANCELED`, `PENDING_REFUND`, `PARTIALLY_REFUNDED`, `REFUNDED`.
    public var state: String?
    /// "The final amount paid by the customer, taking into account discounts and taxes."
    public var total: Money?
    /// "The total tax paid as a part of this order."
    public var tax: Money?
    public var buyerAddress: BuyerAddress?
    public var lineItems: [LineItem]?

    public init(
        orderId: String, purchaseToken: String, state: String = "PROCESSED", total: Money, tax: Money? = nil,
        buyerCountry: String? = nil, lineItems: [LineItem] = []
    ) {
        self.orderId = orderId
        self.purchaseToken = purchaseToken
        self.state = state
        self.total = total
        self.tax = tax
        self.buyerAddress = buyerCountry.map { BuyerAddress(buyerCountry: $0) }
        self.lineItems = lineItems
    }
}
