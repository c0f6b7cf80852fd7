extension JWSRenewalInfoDecodedPayload {
    /// [expirationIntent](https://developer.apple.com/documentation/appstoreserverapi/expirationintent)
    public enum ExpirationIntent: Int, Hashable, Sendable, CaseIterable {
        case customerCancelled = 1
        case billingError = 2
        case customerDidNotConsentToPriceIncrease = 3
        case productNotAvailable = 4
        case other = 5
    }

    /// [autoRenewStatus](https://developer.apple.com/documentation/appstoreserverapi/autorenewstatus)
    public enum AutoRenewStatus: Int, Hashable, Sendable, CaseIterable {
        case off = 0
        case on = 1
    }

    /// [priceIncreaseStatus](https://developer.apple.com/documentation/appstoreserverapi/priceincreasestatus)
    public enum PriceIncreaseStatus: Int, Hashable, Sendable, CaseIterable {
        case customerHasNotResponded = 0
        case customerConsentedOrWasNotifiedWithoutNeedingConsent = 1
    }
}
