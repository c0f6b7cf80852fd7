/// The body of Send Consumption Information
/// ([ConsumptionRequest](https://developer.apple.com/documentation/appstoreserverapi/consumptionrequest)):
/// what we know of a purchase a customer asked Apple to refund. Apple refuses it (`400`
/// `4000035`) unless `customerConsented` is true.
public struct ConsumptionInformation: Codable, Hashable, Sendable {
    /// `customerConsented`: the customer agreed to share this with Apple.
    public var customerConsented: Bool
    /// `deliveryStatus`: `DELIVERED`, or an `UNDELIVERED_*` reason.
    public var deliveryStatus: String
    /// `sampleContentProvided`: whether a free sample or trial came before the purchase.
    public var sampleContentProvided: Bool
    /// `consumptionPercentage`: the share consumed, in milliunits (100000 is all).
    public var consumptionPercentage: Int?
    /// `refundPreference`: `DECLINE`, `GRANT_FULL` or `GRANT_PRORATED`; none leaves it to Apple.
    public var refundPreference: String?

    public init(
        customerConsented: Bool, deliveryStatus: String, sampleContentProvided: Bool = false,
        consumptionPercentage: Int? = nil, refundPreference: String? = nil
    ) {
        self.customerConsented = customerConsented
        self.deliveryStatus = deliveryStatus
        self.sampleContentProvided = sampleContentProvided
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }
}

/// An answer without a body (`202 Accepted`).
public struct AppStoreServerAPINoContent: Codable, Hashable, Sendable {
    public init() {}
}
